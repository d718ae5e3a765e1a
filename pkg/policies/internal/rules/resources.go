package rules

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// resourcesKind checks ResourceRequirements: required requests and limits,
// the limit/request ratio and absolute bounds of each resource, with
// sidecars excluded by name, and groups of places one of which must set a
// request or limit (resources_any_of.go).
var resourcesKind = ruleKind{
	name:       "resources",
	configured: func(r *v1alpha1.Rule) bool { return r.Resources != nil },
	compile:    compileResources,
}

type Resources struct {
	Paths           []ObjectPath
	Preset          v1alpha1.ResourcesPreset
	RequireRequests []string
	// RequestsWritten: only a request written out satisfies
	// RequireRequests (requireRequestsMode: Written).
	RequestsWritten bool
	RequireLimits   []string
	Ratios          []RatioBand
	RequestBounds   []QuantityBound
	LimitBounds     []QuantityBound
	// Exclude are the names of the items, at each path's last "[*]", that
	// are not checked.
	Exclude []string
	AnyOf   []AnyOf
}

// RatioBand holds its bounds as exact rationals: a ratio at the boundary
// (exactly 4× with a max of 4) is decided without float rounding.
type RatioBand struct {
	Resource                   string
	Min, Max                   *big.Rat
	MinExclusive, MaxExclusive bool
}

// QuantityBound bounds one resource's request or limit, inclusively.
type QuantityBound struct {
	Resource string
	Min, Max *resource.Quantity
}

func compileResources(spec *v1alpha1.Rule, path *field.Path, env *compileEnv) (Rule, field.ErrorList) {
	cfg := spec.Resources
	path = path.Child("resources")
	paths, errs := parsePaths(cfg.Paths, path.Child("paths"))
	r := &Resources{Paths: paths, Preset: cfg.Preset, RequireRequests: cfg.RequireRequests, RequireLimits: cfg.RequireLimits, Exclude: cfg.ExcludeContainers}
	switch cfg.RequireRequestsMode {
	case "", v1alpha1.EffectiveRequests:
	case v1alpha1.WrittenRequests:
		r.RequestsWritten = true
	default:
		errs = append(errs, field.NotSupported(path.Child("requireRequestsMode"), cfg.RequireRequestsMode, []v1alpha1.RequestsMode{v1alpha1.EffectiveRequests, v1alpha1.WrittenRequests}))
	}
	if len(cfg.Paths) == 0 && cfg.Preset == "" && len(cfg.RequireAnyOf) == 0 {
		errs = append(errs, field.Required(path.Child("paths"), "paths, preset or requireAnyOf is required"))
	}
	for i, b := range cfg.Ratios {
		at := path.Child("ratios").Index(i)
		band := RatioBand{Resource: b.Resource, MinExclusive: b.MinExclusive, MaxExclusive: b.MaxExclusive}
		if b.Min != nil {
			band.Min = quantityRat(*b.Min)
		}
		if b.Max != nil {
			band.Max = quantityRat(*b.Max)
		}
		switch {
		case band.Min == nil && band.Max == nil:
			errs = append(errs, field.Required(at, "min or max is required"))
		case band.Min != nil && band.Min.Sign() <= 0:
			errs = append(errs, field.Invalid(at.Child("min"), b.Min.String(), "must be greater than 0"))
		case band.Min != nil && band.Max != nil && band.Min.Cmp(band.Max) > 0:
			errs = append(errs, field.Invalid(at.Child("max"), b.Max.String(), "must not be less than min "+b.Min.String()))
		}
		r.Ratios = append(r.Ratios, band)
	}
	var boundErrs field.ErrorList
	r.RequestBounds, boundErrs = compileQuantityBounds(cfg.RequestBounds, path.Child("requestBounds"))
	errs = append(errs, boundErrs...)
	r.LimitBounds, boundErrs = compileQuantityBounds(cfg.LimitBounds, path.Child("limitBounds"))
	errs = append(errs, boundErrs...)
	errs = append(errs, validateExcludeContainers(cfg, paths, path, env)...)
	for i := range cfg.RequireAnyOf {
		group, groupErrs := compileAnyOf(&cfg.RequireAnyOf[i], path.Child("requireAnyOf").Index(i))
		errs = append(errs, groupErrs...)
		r.AnyOf = append(r.AnyOf, group)
	}
	return r, errs
}

// compileQuantityBounds validates bounds: a resource once each, and a
// min no greater than the max. A negative bound is an error: no request
// or limit the API server admits is negative.
func compileQuantityBounds(bounds []v1alpha1.QuantityBound, path *field.Path) ([]QuantityBound, field.ErrorList) {
	var out []QuantityBound
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, b := range bounds {
		at := path.Index(i)
		switch {
		case b.Resource == "":
			errs = append(errs, field.Required(at.Child("resource"), ""))
		case seen[b.Resource]:
			errs = append(errs, field.Duplicate(at.Child("resource"), b.Resource))
		}
		seen[b.Resource] = true
		if b.Min == nil && b.Max == nil {
			errs = append(errs, field.Required(at, "min or max is required"))
		}
		for _, q := range []struct {
			name string
			q    *resource.Quantity
		}{{"min", b.Min}, {"max", b.Max}} {
			if q.q != nil && q.q.Sign() < 0 {
				errs = append(errs, field.Invalid(at.Child(q.name), q.q.String(), "must not be negative"))
			}
		}
		if b.Min != nil && b.Max != nil && b.Min.Cmp(*b.Max) > 0 {
			errs = append(errs, field.Invalid(at.Child("max"), b.Max.String(), "must not be less than min "+b.Min.String()))
		}
		out = append(out, QuantityBound{Resource: b.Resource, Min: printedCopy(b.Min), Max: printedCopy(b.Max)})
	}
	return out, errs
}

// printedCopy is a copy of q whose String is computed: String caches
// its text in the quantity, a write that concurrent checks must not race
// on.
func printedCopy(q *resource.Quantity) *resource.Quantity {
	if q == nil {
		return nil
	}
	c := q.DeepCopy()
	_ = c.String()
	return &c
}

// validateExcludeContainers checks excludeContainers: container names,
// and a place to apply them. With the CRDs loaded, the items each path's
// last "[*]" reaches must have a name: a list of nameless items could
// never skip one, and the exclusion would pass for working when it does
// nothing.
func validateExcludeContainers(cfg *v1alpha1.ResourcesRule, paths []ObjectPath, path *field.Path, env *compileEnv) field.ErrorList {
	if len(cfg.ExcludeContainers) == 0 {
		return nil
	}
	at := path.Child("excludeContainers")
	errs := validateContainerNames(cfg.ExcludeContainers, at)
	hasList := cfg.Preset != ""
	for i, p := range paths {
		last := p.LastEach()
		if last < 0 {
			continue
		}
		hasList = true
		if env == nil || env.schemas == nil {
			continue
		}
		lists, texts := pathLists(ObjectPath{Steps: p.Steps[:last+1]}, "")
		for _, gvk := range env.kinds {
			if has, known := env.schemas.ItemHasField(gvk, lists[len(lists)-1], []string{"name"}); known && !has {
				errs = append(errs, field.Invalid(path.Child("paths").Index(i), p.Raw, fmt.Sprintf("the items of %s in %s have no name field, so excludeContainers cannot skip any of them", texts[len(texts)-1], gvk.Kind)))
			}
		}
	}
	if !hasList {
		errs = append(errs, field.Forbidden(at, "may only be set with a path through a list ([*]) or a preset: it skips the items of a path's last [*] by name"))
	}
	return errs
}

func (r *Resources) Operations() []v1alpha1.Operation { return createUpdate }

func (r *Resources) Check(_ context.Context, req *Request) ([]Finding, error) {
	obj := req.Object
	var out []Finding
	for _, p := range resourcePaths(r.Paths, r.Preset, obj.GetKind()) {
		p.visitItems(obj.Object, nil, 0, func(path *field.Path, value any, found bool, item any) {
			if r.excluded(item) {
				return
			}
			out = append(out, findings(r.checkRequirements(path, value, found)...)...)
		})
	}
	for i := range r.AnyOf {
		out = append(out, findings(r.AnyOf[i].check(obj.Object)...)...)
	}
	return out, nil
}

// excluded tells whether item, the list item of a path's last "[*]", is a
// container excludeContainers names.
func (r *Resources) excluded(item any) bool {
	if len(r.Exclude) == 0 {
		return false
	}
	name, ok := itemName(item)
	return ok && slices.Contains(r.Exclude, name)
}

func (r *Resources) checkRequirements(path *field.Path, value any, found bool) field.ErrorList {
	var reqs map[string]any
	if found {
		var ok bool
		if reqs, ok = value.(map[string]any); !ok {
			return field.ErrorList{field.TypeInvalid(path, value, "must be an object with requests and limits")}
		}
	}
	requests, errs := quantities(reqs["requests"], path.Child("requests"))
	limits, limitErrs := quantities(reqs["limits"], path.Child("limits"))
	errs = append(errs, limitErrs...)

	for _, name := range r.RequireRequests {
		if _, ok := requests.get(name); ok {
			continue
		}
		if _, ok := limits.get(name); ok && !r.RequestsWritten {
			continue // Kubernetes sets the request to the limit
		}
		errs = append(errs, field.Required(path.Child("requests", name), r.missingRequest(name)))
	}
	for _, name := range r.RequireLimits {
		if _, ok := limits.get(name); !ok {
			errs = append(errs, field.Required(path.Child("limits", name), fmt.Sprintf("no %s limit; this policy requires limits for %s", name, strings.Join(r.RequireLimits, ", "))))
		}
	}
	for _, band := range r.Ratios {
		request, _ := effectiveRequest(requests, limits, band.Resource)
		if limit, hasLimit := limits.get(band.Resource); hasLimit {
			if msg := band.violation(request, limit); msg != "" {
				errs = append(errs, field.Invalid(path.Child("limits", band.Resource), field.OmitValueType{}, msg))
			}
		}
	}
	for _, b := range r.RequestBounds {
		request, ok := effectiveRequest(requests, limits, b.Resource)
		if !ok {
			continue
		}
		// A request set from the limit is reported where it is written.
		at := path.Child("requests", b.Resource)
		if _, written := requests.get(b.Resource); !written {
			at = path.Child("limits", b.Resource)
		}
		if msg := b.Violation("requests", request.Quantity, request.raw); msg != "" {
			errs = append(errs, field.Invalid(at, field.OmitValueType{}, msg))
		}
	}
	for _, b := range r.LimitBounds {
		if limit, ok := limits.get(b.Resource); ok {
			if msg := b.Violation("limits", limit.Quantity, limit.raw); msg != "" {
				errs = append(errs, field.Invalid(path.Child("limits", b.Resource), field.OmitValueType{}, msg))
			}
		}
	}
	return errs
}

// Violation says how q, the resource's requests or limits (of) written
// as raw, breaks the bound, or "" when it does not.
func (b QuantityBound) Violation(of string, q resource.Quantity, raw string) string {
	switch {
	case b.Min != nil && q.Cmp(*b.Min) < 0:
		return fmt.Sprintf("%s.%s %s is less than %s; allowed %s", of, b.Resource, raw, b.Min.String(), b.Describe())
	case b.Max != nil && q.Cmp(*b.Max) > 0:
		return fmt.Sprintf("%s.%s %s is more than %s; allowed %s", of, b.Resource, raw, b.Max.String(), b.Describe())
	}
	return ""
}

// Describe renders the bound: "2Gi–64Gi", "at least 2Gi", "at most 64Gi".
func (b QuantityBound) Describe() string {
	switch {
	case b.Min != nil && b.Max != nil:
		return b.Min.String() + "–" + b.Max.String()
	case b.Min != nil:
		return "at least " + b.Min.String()
	}
	return "at most " + b.Max.String()
}

// missingRequest is the message for a required request that is not there.
func (r *Resources) missingRequest(name string) string {
	if r.RequestsWritten {
		return MissingWrittenRequest(name, r.RequireRequests)
	}
	return fmt.Sprintf("no %s request; this policy requires requests for %s", name, strings.Join(r.RequireRequests, ", "))
}

// MissingWrittenRequest is the message for a request that
// requireRequestsMode: Written requires and the object does not write.
func MissingWrittenRequest(name string, required []string) string {
	return fmt.Sprintf("no %s request written; this policy requires requests for %s written out (requireRequestsMode: Written), and a limit does not count", name, strings.Join(required, ", "))
}

// RequestFromLimit is what a message says of a request Kubernetes set
// from the limit.
const RequestFromLimit = " (not set: Kubernetes sets it to the limit)"

// effectiveRequest is the request a container runs with: the one written,
// else its limit, which is what Kubernetes sets a missing request to. A
// policy that looked only at written requests would pass limits alone,
// and deny the very same resources written out in full.
func effectiveRequest(requests, limits namedQuantities, name string) (quantity, bool) {
	if q, ok := requests.get(name); ok {
		return q, true
	}
	q, ok := limits.get(name)
	q.raw += RequestFromLimit
	return q, ok
}

// violation says how limit/request breaks the band, or "" when it does not.
func (b RatioBand) violation(request, limit quantity) string {
	if b.wholeWithin(request.Quantity, limit.Quantity) {
		return ""
	}
	return b.exactViolation(request, limit)
}

// exactViolation is violation in rationals.
func (b RatioBand) exactViolation(request, limit quantity) string {
	req, lim := quantityRat(request.Quantity), quantityRat(limit.Quantity)
	if req.Sign() == 0 {
		if lim.Sign() == 0 || b.Max == nil {
			return "" // nothing requested and nothing, or anything, allowed
		}
		return fmt.Sprintf("limits.%s %s over requests.%s %s is an unbounded ratio; allowed %s", b.Resource, limit.raw, b.Resource, request.raw, b.Describe())
	}
	ratio := new(big.Rat).Quo(lim, req)
	tooLow := b.Min != nil && (ratio.Cmp(b.Min) < 0 || b.MinExclusive && ratio.Cmp(b.Min) == 0)
	tooHigh := b.Max != nil && (ratio.Cmp(b.Max) > 0 || b.MaxExclusive && ratio.Cmp(b.Max) == 0)
	if !tooLow && !tooHigh {
		return ""
	}
	return fmt.Sprintf("limits.%s %s is %s× requests.%s %s; allowed %s", b.Resource, limit.raw, formatRatio(ratio), b.Resource, request.raw, b.Describe())
}

// wholeWithin tells that limit/request lies in the band, decided with
// int64 products for whole quantities ("2", "4Gi") whose products fit;
// false leaves it to the exact rationals, which allocate on every request.
func (b RatioBand) wholeWithin(request, limit resource.Quantity) bool {
	r, rok := request.AsInt64()
	l, lok := limit.AsInt64()
	if !rok || !lok || r <= 0 {
		return false
	}
	// compare is the sign of limit/request - bound: of l×q - r×p.
	compare := func(bound *big.Rat) (int, bool) {
		p, q := bound.Num(), bound.Denom()
		if !p.IsInt64() || !q.IsInt64() {
			return 0, false
		}
		lq, lok := multiply(l, q.Int64())
		rp, rok := multiply(r, p.Int64())
		return cmp.Compare(lq, rp), lok && rok
	}
	if b.Min != nil {
		if c, ok := compare(b.Min); !ok || c < 0 || c == 0 && b.MinExclusive {
			return false
		}
	}
	if b.Max != nil {
		if c, ok := compare(b.Max); !ok || c > 0 || c == 0 && b.MaxExclusive {
			return false
		}
	}
	return true
}

// multiply is a×b, and whether it did not overflow.
func multiply(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	return c, c/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
}

// Describe renders the band: "1.5×–4×", or with exclusive bounds
// "more than 1.5× and less than 4×".
func (b RatioBand) Describe() string {
	if b.Min != nil && b.Max != nil && !b.MinExclusive && !b.MaxExclusive {
		return formatBound(b.Min) + "×–" + formatBound(b.Max) + "×"
	}
	var parts []string
	if b.Min != nil {
		parts = append(parts, map[bool]string{true: "more than ", false: "at least "}[b.MinExclusive]+formatBound(b.Min)+"×")
	}
	if b.Max != nil {
		parts = append(parts, map[bool]string{true: "less than ", false: "at most "}[b.MaxExclusive]+formatBound(b.Max)+"×")
	}
	return strings.Join(parts, " and ")
}

// formatRatio prints a ratio with at most two decimals and at least one:
// 8 → "8.0", 1.5 → "1.5", 10/3 → "3.33".
func formatRatio(r *big.Rat) string {
	s := strings.TrimRight(r.FloatString(2), "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

// formatBound prints a configured bound as short as it is exact: 4, 1.5.
func formatBound(r *big.Rat) string {
	return strings.TrimSuffix(strings.TrimRight(r.FloatString(6), "0"), ".")
}

// quantityRat is q as an exact rational, unscaled digits over a power of
// ten, never rounded through a float.
func quantityRat(q resource.Quantity) *big.Rat {
	d := q.AsDec() // converts q in place: q is our copy
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(int(d.Scale())))), nil)
	if d.Scale() < 0 {
		return new(big.Rat).SetInt(pow.Mul(pow, d.UnscaledBig()))
	}
	return new(big.Rat).SetFrac(d.UnscaledBig(), pow)
}

func abs(n int) int { return max(n, -n) }

// quantity is a parsed quantity and how the object wrote it, which is what
// messages show ("1000M", not the canonical "1G").
type quantity struct {
	resource.Quantity
	raw string
}

// namedQuantities are the quantities of a map of resource name to
// quantity, in name order. A resource map holds a few names: a list
// searched in order costs less than a map, which the webhook builds twice
// per place on every request.
type namedQuantities []namedQuantity

type namedQuantity struct {
	name string
	quantity
}

// get is the quantity of the resource name.
func (q namedQuantities) get(name string) (quantity, bool) {
	for _, n := range q {
		if n.name == name {
			return n.quantity, true
		}
	}
	return quantity{}, false
}

// quantities reads a map of resource name to quantity.
func quantities(value any, path *field.Path) (namedQuantities, field.ErrorList) {
	if value == nil {
		return nil, nil
	}
	m, ok := value.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.TypeInvalid(path, value, "must be a map of resource names to quantities")}
	}
	out := make(namedQuantities, 0, len(m))
	var errs field.ErrorList
	var buf [8]string // a resources map's few names, sorted without allocating
	names := buf[:0]
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		var raw string
		switch v := m[name].(type) {
		case string:
			raw = v
		case int64, float64:
			raw = fmt.Sprint(v)
		default:
			errs = append(errs, field.TypeInvalid(path.Child(name), v, "must be a quantity"))
			continue
		}
		q, err := resource.ParseQuantity(raw)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child(name), m[name], err.Error()))
			continue
		}
		out = append(out, namedQuantity{name, quantity{Quantity: q, raw: raw}})
	}
	return out, errs
}
