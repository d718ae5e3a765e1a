package rules

import (
	"context"
	"math"
	"math/big"
	"strconv"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	"gopkg.in/inf.v0"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// defaultsKind fills missing limits from requests. It is a mutator: the
// engine applies its patches before the checks run, so a resources rule
// requiring limits sees the limits the mutating webhook will set.
var defaultsKind = ruleKind{
	name:       "defaults",
	configured: func(r *v1alpha1.Rule) bool { return r.Defaults != nil },
	compile:    compileDefaults,
}

type Defaults struct {
	Paths  []ObjectPath
	Preset v1alpha1.ResourcesPreset
	Limits []LimitDefault
}

// LimitDefault sets a missing limit of Resource to its request ×
// Multiplier.
type LimitDefault struct {
	Resource   string
	Multiplier resource.Quantity
}

func compileDefaults(spec *v1alpha1.Rule, path *field.Path, _ *compileEnv) (Rule, field.ErrorList) {
	cfg := spec.Defaults
	path = path.Child("defaults")
	paths, errs := parsePaths(cfg.Paths, path.Child("paths"))
	r := &Defaults{Paths: paths, Preset: cfg.Preset}
	if len(cfg.Paths) == 0 && cfg.Preset == "" {
		errs = append(errs, field.Required(path.Child("paths"), "paths or preset is required"))
	}
	if len(cfg.Limits) == 0 {
		errs = append(errs, field.Required(path.Child("limits"), "at least one resource to default"))
	}
	seen := map[string]bool{}
	for i, l := range cfg.Limits {
		at := path.Child("limits").Index(i)
		switch {
		case l.Resource == "":
			errs = append(errs, field.Required(at.Child("resource"), ""))
		case seen[l.Resource]:
			errs = append(errs, field.Duplicate(at.Child("resource"), l.Resource))
		}
		seen[l.Resource] = true
		// Below 1 the limit would be under the request, which the API
		// server rejects for every container.
		if quantityRat(l.RequestMultiplier).Cmp(big.NewRat(1, 1)) < 0 {
			errs = append(errs, field.Invalid(at.Child("requestMultiplier"), l.RequestMultiplier.String(), "must be at least 1: a limit may not be less than its request"))
		}
		r.Limits = append(r.Limits, LimitDefault{Resource: l.Resource, Multiplier: l.RequestMultiplier})
	}
	return r, errs
}

func (r *Defaults) Operations() []v1alpha1.Operation { return createUpdate }

// check finds nothing: what defaults cannot fill, a resources rule reports.
func (r *Defaults) Check(context.Context, *Request) ([]Finding, error) { return nil, nil }

// mutate proposes one "add" per missing limit, or one "add" of the whole
// limits map where there is none. Each ResourceRequirements is patched once
// even when a path and the preset both reach it.
func (r *Defaults) Mutate(_ context.Context, req *Request) []jsonpatch.Operation {
	if req.Object == nil {
		return nil // nothing to patch: a malformed UPDATE, say
	}
	var ops []jsonpatch.Operation
	seen := map[string]bool{}
	for _, p := range resourcePaths(r.Paths, r.Preset, req.Object.GetKind()) {
		visitPointers(p, req.Object.Object, "", 0, func(pointer string, reqs map[string]any) {
			if !seen[pointer] {
				seen[pointer] = true
				ops = append(ops, r.defaultLimits(pointer, reqs)...)
			}
		})
	}
	return ops
}

func (r *Defaults) defaultLimits(pointer string, reqs map[string]any) []jsonpatch.Operation {
	limits, ok := reqs["limits"].(map[string]any)
	if !ok && reqs["limits"] != nil {
		return nil // not a map: a patch below it would not apply; resources reports it
	}
	if !r.misses(limits) {
		return nil // the requests need not be read
	}
	// Malformed requests are skipped here and reported by a resources rule.
	requests, _ := quantities(reqs["requests"], nil)
	added := map[string]any{}
	var order []string
	for _, d := range r.Limits {
		if limits[d.Resource] != nil {
			continue // set, even if malformed: never overwrite what the user wrote
		}
		request, ok := requests.get(d.Resource)
		if !ok || request.IsZero() {
			// A zero request has no multiple: "0" would read as no limit
			// at all to some runtimes and as nothing allowed to others.
			continue
		}
		if limit, ok := multiplyQuantity(d.Resource, request.Quantity, d.Multiplier); ok {
			added[d.Resource] = limit
			order = append(order, d.Resource)
		}
	}
	switch {
	case len(order) == 0:
		return nil
	case limits == nil:
		return []jsonpatch.Operation{jsonpatch.NewOperation("add", pointer+"/limits", added)}
	}
	ops := make([]jsonpatch.Operation, len(order))
	for i, name := range order {
		ops[i] = jsonpatch.NewOperation("add", pointer+"/limits/"+EscapePointerToken(name), added[name])
	}
	return ops
}

// misses tells whether limits lacks one of the limits r defaults.
func (r *Defaults) misses(limits map[string]any) bool {
	for _, d := range r.Limits {
		if limits[d.Resource] == nil {
			return true
		}
	}
	return false
}

// maxQuantity is the largest value resource.Quantity parses (2^63-1); a
// larger product would be serialized wrongly, so no limit is set.
var maxQuantity = inf.NewDec(math.MaxInt64, 0)

// multiplyQuantity is request × multiplier, exact, written in the request's
// format: 1Gi × 2 = "2Gi", 250m × 1.5 = "375m", 1 × 1.5 = "1500m". The
// product is rounded up only where it cannot be written: to whole bytes for
// byte-counted resources (the API server warns on fractional bytes), and to
// the nano precision of a quantity. Rounding up keeps limit ≥ request ×
// multiplier, so a ratio band's minimum still holds.
func multiplyQuantity(name string, request, multiplier resource.Quantity) (string, bool) {
	product := new(inf.Dec).Mul(request.AsDec(), multiplier.AsDec()) // AsDec converts our copies in place
	scale := inf.Scale(9)
	if CountsBytes(name) {
		scale = 0
	}
	product.Round(product, scale, inf.RoundCeil)
	if product.Cmp(maxQuantity) > 0 {
		return "", false
	}
	q := resource.NewDecimalQuantity(*product, request.Format)
	return q.String(), true
}

// CountsBytes tells whether a resource is an amount of bytes.
func CountsBytes(name string) bool {
	switch name {
	case "memory", "storage", "ephemeral-storage":
		return true
	}
	return strings.HasPrefix(name, "hugepages-")
}

// visitPointers calls fn with the JSON pointer of every object path p
// reaches in value. ObjectPath.visit yields field paths, which cannot be
// turned back into pointer tokens (a map key may hold "." or "]"), so this
// walks the same steps building the pointer.
func visitPointers(p ObjectPath, value any, pointer string, i int, fn func(pointer string, obj map[string]any)) {
	if i == len(p.Steps) {
		if m, ok := value.(map[string]any); ok {
			fn(pointer, m)
		}
		return
	}
	switch step := p.Steps[i]; {
	case step.Field != "" || !step.Each && step.Index < 0:
		key := step.Field
		if key == "" {
			key = step.Key
		}
		if m, ok := value.(map[string]any); ok && m[key] != nil {
			visitPointers(p, m[key], pointer+"/"+EscapePointerToken(key), i+1, fn)
		}
	case step.Each:
		list, _ := value.([]any)
		for j, item := range list {
			visitPointers(p, item, pointer+"/"+strconv.Itoa(j), i+1, fn)
		}
	default:
		if list, ok := value.([]any); ok && step.Index < len(list) {
			visitPointers(p, list[step.Index], pointer+"/"+strconv.Itoa(step.Index), i+1, fn)
		}
	}
}

// EscapePointerToken escapes a JSON pointer token (RFC 6901): "~" first,
// then "/", so "nvidia.com/gpu" is "nvidia.com~1gpu".
var EscapePointerToken = strings.NewReplacer("~", "~0", "/", "~1").Replace
