package live

// WithNotice gives the banner's warning while Redis answers (a Cluster's masters partly down,
// a failover), read at each tick like WithMode's mode: a change publishes the status to every
// page, and every topic anew at its next poll (what a failover lost disappears, with the
// note saying why). It must not wait for Redis.
func WithNotice(notice func() string) Option { return func(w *Watcher) { w.notice = notice } }

// noticeNow is WithNotice's answer, or "".
func (w *Watcher) noticeNow() string {
	if w.notice == nil {
		return ""
	}
	return w.notice()
}

// noticeAnew returns the notice now; when it differs from the status's, every topic's last
// snapshot is forgotten, so each open page is rendered anew, in full, at its next poll (the
// hub sends what differs from what the page has). Called by tick, with tickMu held.
func (w *Watcher) noticeAnew() string {
	notice := w.noticeNow()
	if notice != w.Status().Notice {
		clear(w.last)
	}
	return notice
}
