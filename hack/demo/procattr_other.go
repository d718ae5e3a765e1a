//go:build !linux

package main

import "syscall"

// childProcAttr: elsewhere the webhook shares the demo's process group, so
// a Ctrl-C reaches it too and it shuts down by itself; the demo still
// waits for it to exit.
func childProcAttr() *syscall.SysProcAttr { return nil }
