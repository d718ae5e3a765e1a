package main

import "syscall"

// childProcAttr puts the webhook in a process group of its own, so that a
// Ctrl-C in the terminal reaches only the demo, which then stops the
// webhook after the control plane no longer calls it; and has the kernel
// send it SIGTERM if the demo dies without cleaning up (SIGKILL), so it
// never outlives the demo.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
