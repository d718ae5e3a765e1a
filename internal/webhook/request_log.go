package webhook

import (
	"slices"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// requestLogger is the logger a request is handled with: base with the
// request's identity, the values controller-runtime's DefaultLogConstructor
// gives it, added only when a line is written. zap encodes values as they
// are added, and at the default level an allowed request writes no line:
// encoding them cost as much as evaluating the example GuardPolicy.
func requestLogger(base logr.Logger, req *admission.Request) logr.Logger {
	if req == nil || base.GetSink() == nil {
		return base
	}
	return logr.New(&deferredValues{sink: base.GetSink(), values: []any{
		"object", klog.KRef(req.Namespace, req.Name),
		"namespace", req.Namespace, "name", req.Name,
		"resource", req.Resource, "user", req.UserInfo.Username,
		"requestID", req.UID,
	}})
}

// deferredValues is a LogSink that keeps its key/value pairs until a
// line is written.
type deferredValues struct {
	sink   logr.LogSink
	values []any
}

var _ logr.CallDepthLogSink = (*deferredValues)(nil)

// Init does nothing: the sink was initialised by the logger it came from.
func (d *deferredValues) Init(logr.RuntimeInfo) {}

func (d *deferredValues) Enabled(level int) bool { return d.sink.Enabled(level) }

func (d *deferredValues) Info(level int, msg string, keysAndValues ...any) {
	d.writer().Info(level, msg, keysAndValues...)
}

func (d *deferredValues) Error(err error, msg string, keysAndValues ...any) {
	d.writer().Error(err, msg, keysAndValues...)
}

func (d *deferredValues) WithValues(keysAndValues ...any) logr.LogSink {
	return &deferredValues{sink: d.sink, values: append(slices.Clip(d.values), keysAndValues...)}
}

func (d *deferredValues) WithName(name string) logr.LogSink {
	return &deferredValues{sink: d.sink.WithName(name), values: d.values}
}

func (d *deferredValues) WithCallDepth(depth int) logr.LogSink {
	return &deferredValues{sink: withCallDepth(d.sink, depth), values: d.values}
}

// writer is the sink with the values, reporting the caller one frame
// further out: Info and Error here are a frame of their own.
func (d *deferredValues) writer() logr.LogSink {
	return withCallDepth(d.sink, 1).WithValues(d.values...)
}

func withCallDepth(sink logr.LogSink, depth int) logr.LogSink {
	if s, ok := sink.(logr.CallDepthLogSink); ok {
		return s.WithCallDepth(depth)
	}
	return sink
}
