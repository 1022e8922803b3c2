// Package history records and reads the time series behind the charts (History, run in
// one instance by the recorder singleton; Charts, the live watcher's reader of them) and the
// business figures /metrics exports (Business).
package history
