// Package schedules is the Redis adapter's room of recurring schedules: a schedule enqueues one
// job on its queue per period (a fixed interval or a cron expression in a zone), run by one
// instance at a time (Schedules.Run under the "schedules" singleton). A schedule's HASH lives on
// its queue's Cluster slot, so fireScript advances the schedule (compare-and-set on its next
// period) and enqueues the period's job (the queue's own enqueue, queues.LuaEnqueueBody, with
// the id domain.ScheduledJobID) in one step; zpulse:index:schedules names each schedule's
// queue.
package schedules
