package rules

import (
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// celRequestValue is "request". Every field is present, empty when the
// Request does not say (a CLI run names no user): expressions need no has().
//
// A field is read from the Request when it is selected: a rule that reads
// request.operation is common, and building the whole value as maps for
// it would cost more than the rule. Whatever needs the whole value
// (equality, iteration, size, conversion) gets the maps, built once.
type celRequestValue struct {
	req   *Request
	whole traits.Mapper // built on first use
}

// Find selects a field: how the interpreter reads request.<field>.
func (r *celRequestValue) Find(key ref.Val) (ref.Val, bool) {
	field, ok := key.(types.String)
	if !ok {
		return r.mapper().Find(key)
	}
	switch field {
	case "operation":
		return types.String(r.req.Operation), true
	case "name":
		return types.String(r.name()), true
	case "namespace":
		return types.String(r.req.Namespace), true
	case "dryRun":
		return types.Bool(r.req.DryRun), true
	case "kind":
		return types.DefaultTypeAdapter.NativeToValue(requestKind(r.req)), true
	case "userInfo":
		return types.DefaultTypeAdapter.NativeToValue(requestUserInfo(r.req)), true
	}
	return r.mapper().Find(key)
}

func (r *celRequestValue) Get(key ref.Val) ref.Val {
	if v, ok := r.Find(key); ok {
		return v
	}
	return r.mapper().Get(key) // the map's error for a missing key
}

// The rest of ref.Val and traits.Mapper is the whole value's.

func (r *celRequestValue) Contains(key ref.Val) ref.Val     { return r.mapper().Contains(key) }
func (r *celRequestValue) Size() ref.Val                    { return r.mapper().Size() }
func (r *celRequestValue) Iterator() traits.Iterator        { return r.mapper().Iterator() }
func (r *celRequestValue) Equal(other ref.Val) ref.Val      { return r.mapper().Equal(other) }
func (r *celRequestValue) ConvertToType(t ref.Type) ref.Val { return r.mapper().ConvertToType(t) }
func (r *celRequestValue) Type() ref.Type                   { return r.mapper().Type() }
func (r *celRequestValue) Value() any                       { return r.mapper().Value() }
func (r *celRequestValue) ConvertToNative(t reflect.Type) (any, error) {
	return r.mapper().ConvertToNative(t)
}

// mapper is the whole value, as maps.
func (r *celRequestValue) mapper() traits.Mapper {
	if r.whole == nil {
		r.whole = types.DefaultTypeAdapter.NativeToValue(map[string]any{
			"operation": string(r.req.Operation),
			"kind":      requestKind(r.req),
			"name":      r.name(),
			"namespace": r.req.Namespace,
			"userInfo":  requestUserInfo(r.req),
			"dryRun":    r.req.DryRun,
		}).(traits.Mapper)
	}
	return r.whole
}

func (r *celRequestValue) name() string {
	if s := r.req.subject(); s != nil {
		return s.GetName()
	}
	return ""
}

func requestKind(req *Request) map[string]any {
	var kind schema.GroupVersionKind
	if s := req.subject(); s != nil {
		kind = s.GroupVersionKind()
	}
	return map[string]any{"group": kind.Group, "version": kind.Version, "kind": kind.Kind}
}

// noExtra is request.userInfo.extra of a user without extra values; CEL
// never changes a map.
var noExtra = map[string][]string{}

func requestUserInfo(req *Request) map[string]any {
	groups := req.UserInfo.Groups
	if groups == nil {
		groups = []string{}
	}
	extra := noExtra
	if len(req.UserInfo.Extra) > 0 {
		extra = make(map[string][]string, len(req.UserInfo.Extra))
		for k, v := range req.UserInfo.Extra {
			extra[k] = v
		}
	}
	return map[string]any{"username": req.UserInfo.Username, "uid": req.UserInfo.UID, "groups": groups, "extra": extra}
}
