package app

import (
	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// silenceKlog drops what client-go logs through klog. Every failure it
// logs (a refused connection, a failed discovery) it also returns as an
// error, which crdguard reports once, with its exit code; klog's copy
// would be a raw line on stderr in no format of crdguard's. The API
// server's warnings, which client-go only logs, go through
// serverWarnings instead.
func silenceKlog() {
	klog.SetLogger(logr.Discard())
}
