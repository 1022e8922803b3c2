//go:build !linux

package redistest

import "os/exec"

// dieWithParent does nothing where the kernel offers no parent-death signal: a test binary
// that dies before Main's cleanup leaves its servers running.
func dieWithParent(*exec.Cmd) {}
