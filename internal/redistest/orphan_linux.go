package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has Linux kill a server when the test binary dies without reaching Main's
// cleanup (a panic, a -timeout), so no redis-server outlives its tests and holds a port.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
