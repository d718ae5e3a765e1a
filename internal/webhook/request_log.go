package webhook

import (
	"slices"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
	return logr.New(&deferredValues{sink: base.GetSink(), request: &requestIdentity{
		namespace: req.Namespace, name: req.Name, resource: req.Resource, user: req.UserInfo.Username, uid: req.UID,
	}})
}

// requestIdentity is what a request's log lines say it is. It is kept as
// fields, boxed into values only for a line that is written.
type requestIdentity struct {
	namespace, name, user string
	resource              metav1.GroupVersionResource
	uid                   types.UID
}

func (r *requestIdentity) values() []any {
	namespace, name := bounded(r.namespace), bounded(r.name)
	resource := metav1.GroupVersionResource{Group: bounded(r.resource.Group), Version: bounded(r.resource.Version), Resource: bounded(r.resource.Resource)}
	return []any{
		"object", klog.KRef(namespace, name),
		"namespace", namespace, "name", name,
		"resource", resource, "user", bounded(r.user),
		"requestID", types.UID(bounded(string(r.uid))),
	}
}

// deferredValues is a LogSink that keeps its key/value pairs until a
// line is written.
type deferredValues struct {
	sink    logr.LogSink
	request *requestIdentity // its values come first
	values  []any
}

var _ logr.CallDepthLogSink = (*deferredValues)(nil)

// Init does nothing: the sink was initialised by the logger it came from.
func (d *deferredValues) Init(logr.RuntimeInfo) {}

func (d *deferredValues) Enabled(level int) bool { return d.sink.Enabled(level) }

// Info and Error bound every value they write: it may come from the request.
func (d *deferredValues) Info(level int, msg string, keysAndValues ...any) {
	d.writer().Info(level, msg, boundValues(keysAndValues)...)
}

func (d *deferredValues) Error(err error, msg string, keysAndValues ...any) {
	d.writer().Error(BoundError(err), msg, boundValues(keysAndValues)...)
}

func (d *deferredValues) WithValues(keysAndValues ...any) logr.LogSink {
	return &deferredValues{sink: d.sink, request: d.request, values: append(slices.Clip(d.values), keysAndValues...)}
}

func (d *deferredValues) WithName(name string) logr.LogSink {
	return &deferredValues{sink: d.sink.WithName(name), request: d.request, values: d.values}
}

func (d *deferredValues) WithCallDepth(depth int) logr.LogSink {
	return &deferredValues{sink: withCallDepth(d.sink, depth), request: d.request, values: d.values}
}

// writer is the sink with the values, reporting the caller one frame
// further out: Info and Error here are a frame of their own.
func (d *deferredValues) writer() logr.LogSink {
	values := boundValues(d.values)
	if d.request != nil {
		values = append(d.request.values(), values...)
	}
	return withCallDepth(d.sink, 1).WithValues(values...)
}

func withCallDepth(sink logr.LogSink, depth int) logr.LogSink {
	if s, ok := sink.(logr.CallDepthLogSink); ok {
		return s.WithCallDepth(depth)
	}
	return sink
}
