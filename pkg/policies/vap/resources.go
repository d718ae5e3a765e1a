package vap

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// quantityFormatError is resource.ErrFormatWrong's text, which a string
// that is no quantity gets in the engine's message.
const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

// compileResources compiles a resources rule. Ratio bands are decided exactly:
// limit/request against a bound p/q is q×limit against p×request, with
// the quantity library's exact add and compareTo (it has no mul), so 1.5×
// and 4× are decided at the boundary as the engine decides them.
func compileResources(rule *rules.Resources, c *compiler) ([]ruleCEL, error) {
	rr := resourcesCEL{rule}
	for _, band := range rr.Ratios {
		for _, b := range []*big.Rat{band.Min, band.Max} {
			if b != nil && (!b.Num().IsInt64() || !b.Denom().IsInt64()) {
				return nil, needsWebhook("ratio bound %s is not a fraction of two 64-bit integers", b.RatString())
			}
		}
	}
	// Every path's places first, then the requirements once over all of
	// them: the leaf is the large part of the expression.
	places, helpers := celRulePlaces(c.names, rr.Paths, rr.Preset, func(p rules.ObjectPath) string {
		return rr.celPlaces(c.names, p)
	})
	var findings, passes []string
	if len(places) > 0 {
		leaf := func(path celPath, value string, found bool) string {
			return rr.celRequirements(c.names, path, value, found)
		}
		helper := c.names.next("places")
		helpers = append(helpers, admissionregistrationv1.Variable{Name: helper, Expression: strings.Join(places, " + ")})
		pl := c.names.next("pl")
		findings = append(findings, celApply(c.names, "variables."+helper, leaf))
		passes = append(passes, fmt.Sprintf("variables.%s.all(%s, %s.f ? %s : %s)", helper, pl, pl, rr.celPasses(c.names, pl+".v", true), rr.celPasses(c.names, "null", false)))
	}
	for i := range rr.AnyOf {
		g := anyOfCEL{&rr.AnyOf[i]}
		f, ok, h := g.celCheck(c.names)
		findings, passes, helpers = append(findings, f), append(passes, ok), append(helpers, h...)
	}
	if len(findings) == 0 {
		return nil, nil
	}
	return []ruleCEL{{
		findings: strings.Join(findings, " + "),
		passes:   strings.Join(passes, " && "),
		helpers:  helpers,
		summary:  resourcesSummary(rule),
	}}, nil
}

// celPlaces lists the places of p the rule checks: without the items
// of its last "[*]" that excludeContainers names.
func (r resourcesCEL) celPlaces(names *celNames, p rules.ObjectPath) string {
	var keep *celKeep
	if at := p.LastEach(); at >= 0 && len(r.Exclude) > 0 {
		keep = &celKeep{at: at, keep: func(item string) string {
			return fmt.Sprintf("!(%s in %s)", celItemName(item), celStrings(r.Exclude))
		}}
	}
	return celPlacesKeeping(names, p, "object", keep)
}

// resourcesCEL writes a resources rule's checks in CEL.
type resourcesCEL struct{ *rules.Resources }

// bandCEL writes a ratio band's checks in CEL.
type bandCEL struct{ rules.RatioBand }

// celRequirements is checkRequirements in CEL.
func (r resourcesCEL) celRequirements(names *celNames, path celPath, value string, found bool) string {
	var requests, limits string
	var out []string
	if found {
		out = append(out, fmt.Sprintf(`(type(%s) == map ? [] : [%s])`, value,
			celFinding(path, celTypeInvalidBody(value, celString("must be an object with requests and limits")))))
		requests, limits = names.next("requests"), names.next("limits")
		out = append(out, celQuantityErrors(names, value, "requests", path.child("requests")), celQuantityErrors(names, value, "limits", path.child("limits")))
	}
	// has tells whether a valid quantity is at m[name].
	has := func(m, name string) string {
		if !found {
			return "false"
		}
		return fmt.Sprintf("(%[1]s in %[2]s && %[3]s)", celString(name), m, celIsQuantity(m+"["+celString(name)+"]"))
	}
	for _, name := range r.RequireRequests {
		if r.RequestsWritten {
			out = append(out, fmt.Sprintf("(%s ? [] : [%s])", has(requests, name),
				celFinding(path.child("requests").child(name), celString("Required value: "+rules.MissingWrittenRequest(name, r.RequireRequests)))))
			continue
		}
		out = append(out, fmt.Sprintf("(%s || %s ? [] : [%s])", has(requests, name), has(limits, name),
			celFinding(path.child("requests").child(name), celString(fmt.Sprintf("Required value: no %s request; this policy requires requests for %s", name, strings.Join(r.RequireRequests, ", "))))))
	}
	for _, name := range r.RequireLimits {
		out = append(out, fmt.Sprintf("(%s ? [] : [%s])", has(limits, name),
			celFinding(path.child("limits").child(name), celString(fmt.Sprintf("Required value: no %s limit; this policy requires limits for %s", name, strings.Join(r.RequireLimits, ", "))))))
	}
	if found {
		for _, b := range r.Ratios {
			band := bandCEL{b}
			at := path.child("limits").child(band.Resource)
			// The effective request: the one written, else the limit.
			written, lim := requests+"["+celString(band.Resource)+"]", limits+"["+celString(band.Resource)+"]"
			req := fmt.Sprintf("(%s ? %s : %s)", has(requests, band.Resource), written, lim)
			reqRaw := fmt.Sprintf("(%s ? %s : %s + %s)", has(requests, band.Resource), celScalarString(written), celScalarString(lim), celString(rules.RequestFromLimit))
			out = append(out, fmt.Sprintf("(%s ? %s : [])", has(limits, band.Resource),
				band.celViolation(names, at, req, lim, reqRaw)))
		}
		for _, b := range r.RequestBounds {
			written, lim := requests+"["+celString(b.Resource)+"]", limits+"["+celString(b.Resource)+"]"
			hasReq, hasLim := has(requests, b.Resource), has(limits, b.Resource)
			at := fmt.Sprintf("(%s ? %s : %s)", hasReq, path.child("requests").child(b.Resource).expr(), path.child("limits").child(b.Resource).expr())
			q := fmt.Sprintf("(%s ? %s : %s)", hasReq, celQuantity(written), celQuantity(lim))
			raw := fmt.Sprintf("(%s ? %s : %s + %s)", hasReq, celScalarString(written), celScalarString(lim), celString(rules.RequestFromLimit))
			out = append(out, fmt.Sprintf("(%s || %s ? %s : [])", hasReq, hasLim, boundCEL{b}.celViolation(names, "requests", at, q, raw)))
		}
		for _, b := range r.LimitBounds {
			lim := limits + "[" + celString(b.Resource) + "]"
			out = append(out, fmt.Sprintf("(%s ? %s : [])", has(limits, b.Resource),
				boundCEL{b}.celViolation(names, "limits", path.child("limits").child(b.Resource).expr(), celQuantity(lim), celScalarString(lim))))
		}
	}
	if len(out) == 0 {
		return "[]"
	}
	expr := strings.Join(out, " + ")
	if !found {
		return "(" + expr + ")"
	}
	// requests and limits are the maps, or empty maps when absent or not
	// maps (their own findings say so).
	mapOf := func(key string) string {
		return fmt.Sprintf(`(%[2]s in %[1]s && type(%[1]s[%[2]s]) == map ? %[1]s[%[2]s] : {})`, value, celString(key))
	}
	return fmt.Sprintf("(type(%s) == map ? cel.bind(%s, %s, cel.bind(%s, %s, %s)) : %s)",
		value, requests, mapOf("requests"), limits, mapOf("limits"), expr, out[0])
}

// celIsQuantity tells whether v is a quantity as quantities() reads one:
// a string that parses, or a number.
func celIsQuantity(v string) string {
	return fmt.Sprintf("(type(%[1]s) == string ? isQuantity(%[1]s) : %[2]s)", v, celIsNumber(v))
}

// celQuantity is the quantity at v, which celIsQuantity accepted.
func celQuantity(v string) string {
	return fmt.Sprintf("quantity(%s)", celScalarString(v))
}

// celQuantityErrors are quantities()'s findings for obj[key], in key order.
func celQuantityErrors(names *celNames, obj, key string, path celPath) string {
	m, k := names.next("m"), names.next("k")
	v := m + "[" + k + "]"
	at := path.with(celPathPart{text: "."}, celPathPart{text: k, isExpr: true})
	// resource.ParseQuantity reads sign, digits, fraction, suffix letters,
	// exponent sign and digits; a string of that shape fails on its suffix
	// (ErrSuffix), any other on its format (ErrFormatWrong).
	parseError := fmt.Sprintf(`(%[1]s != "" && %[1]s.matches('^[+-]?[0-9]*([.][0-9]*)?[eEinumkKMGTP]*[-+]?[0-9]*$') ? "unable to parse quantity's suffix" : %[2]s)`, v, celString(quantityFormatError))
	perKey := fmt.Sprintf(`(type(%[1]s) == string ? (isQuantity(%[1]s) ? [] : [%[2]s]) : %[3]s ? [] : [%[4]s])`,
		v,
		celFinding(at, celInvalidBody(v, parseError)),
		celIsNumber(v),
		celFinding(at, celTypeInvalidBody(v, celString("must be a quantity"))))
	return fmt.Sprintf(`(%[2]s in %[1]s && %[1]s[%[2]s] != null ? cel.bind(%[3]s, %[1]s[%[2]s], type(%[3]s) == map ? %[3]s.map(%[4]s, %[4]s).sort().map(%[4]s, %[5]s).flatten() : [%[6]s]) : [])`,
		obj, celString(key), m, k, perKey,
		celFinding(path, celTypeInvalidBody(m, celString("must be a map of resource names to quantities"))))
}

// celViolation is rules.RatioBand.violation in CEL for the quantities at req and
// lim, as a list of at most one finding at path; reqRaw is the request as
// the message shows it.
func (b bandCEL) celViolation(names *celNames, path celPath, req, lim, reqRaw string) string {
	rq, lq, rraw, lraw := names.next("rq"), names.next("lq"), names.next("rraw"), names.next("lraw")
	unbounded := celString("Invalid value: limits."+b.Resource+" ") + " + " + lraw + ` + " over requests.` + b.Resource + ` " + ` + rraw + ` + " is an unbounded ratio; allowed ` + b.Describe() + `"`
	var zero string
	if b.Max == nil {
		zero = "[]" // nothing requested and anything allowed
	} else {
		zero = fmt.Sprintf("(sign(%s) == 0 ? [] : [%s])", lq, celFinding(path, unbounded))
	}
	bad := b.celOutside(names, rq, lq)
	// The ratio is printed from floats with two decimals, then one
	// trailing zero dropped: formatRatio's "8.0", "1.5", "3.33". The
	// verdict above is exact; only a ratio that lies exactly halfway
	// between two printed values may round the other way.
	ratio := names.next("ratio")
	msg := fmt.Sprintf(`cel.bind(%[1]s, "%%.2f".format([%[2]s.asApproximateFloat() / %[3]s.asApproximateFloat()]), %[4]s + " is " + (%[1]s.endsWith("0") ? %[1]s.substring(0, %[1]s.size() - 1) : %[1]s) + "× requests.%[5]s " + %[6]s + "; allowed %[7]s")`,
		ratio, lq, rq, celString("Invalid value: limits."+b.Resource+" ")+" + "+lraw, b.Resource, rraw, b.Describe())
	return fmt.Sprintf("cel.bind(%s, %s, cel.bind(%s, %s, cel.bind(%s, %s, cel.bind(%s, %s, sign(%s) == 0 ? %s : (%s ? [%s] : [])))))",
		rq, celQuantity(req), lq, celQuantity(lim), rraw, reqRaw, lraw, celScalarString(lim),
		rq, zero, bad, celFinding(path, msg))
}

// celOutside tells whether the limit lq over the nonzero request rq,
// both quantities, lies outside the band.
func (b bandCEL) celOutside(names *celNames, rq, lq string) string {
	// cmp is the sign of limit/request - p/q: q×limit against p×request,
	// turned when the request is negative.
	cmp := func(bound *big.Rat) string {
		return fmt.Sprintf(`sign(%s) * %s.compareTo(%s)`, rq, celMultiply(names, lq, bound.Denom().Int64()), celMultiply(names, rq, bound.Num().Int64()))
	}
	var bad []string
	if b.Min != nil {
		op := "< 0"
		if b.MinExclusive {
			op = "<= 0"
		}
		bad = append(bad, cmp(b.Min)+" "+op)
	}
	if b.Max != nil {
		op := "> 0"
		if b.MaxExclusive {
			op = ">= 0"
		}
		bad = append(bad, cmp(b.Max)+" "+op)
	}
	return strings.Join(bad, " || ")
}

// ratioMargin is how far inside a bound, relatively, a ratio computed
// from floats must lie for celClearlyWithin.
const ratioMargin = 1e-9

// celClearlyWithin tells, for most ratios and cheaply, that the limit at
// lim over the request at req, both valid quantities, lies within the
// band; false leaves it to the exact test. A quantity's float is within a
// few units in the last place of its value (a quantity is at most about
// 9e36 and at least 1e-9 from zero, far from float64's limits), so a
// ratio of floats more than ratioMargin inside a bound is inside it
// exactly. A zero request makes the ratio infinite or NaN: NaN and an
// infinity beyond a bound fail the test, and +Inf over a lower bound
// alone passes as the engine passes a zero request with no upper bound.
// Quantity arithmetic costs kube-apiserver microseconds per add; parsing
// each quantity once for a float ratio costs a fraction of that.
func (b bandCEL) celClearlyWithin(names *celNames, req, lim string) string {
	ratio := names.next("ratio")
	var out []string
	if b.Min != nil {
		f, _ := b.Min.Float64()
		out = append(out, fmt.Sprintf("%s > %s", ratio, celDouble(f+math.Abs(f)*ratioMargin)))
	} else {
		// -Inf: a negative limit over a zero request, which no upper
		// bound allows.
		out = append(out, fmt.Sprintf("%s >= %s", ratio, celDouble(-math.MaxFloat64)))
	}
	if b.Max != nil {
		f, _ := b.Max.Float64()
		out = append(out, fmt.Sprintf("%s < %s", ratio, celDouble(f-math.Abs(f)*ratioMargin)))
	}
	return fmt.Sprintf("cel.bind(%s, %s.asApproximateFloat() / %s.asApproximateFloat(), %s)", ratio, celQuantity(lim), celQuantity(req), strings.Join(out, " && "))
}

// celDouble is f as a CEL double literal.
func celDouble(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") { // n: NaN and Inf, which bounds never are
		s += ".0"
	}
	return s
}

// celPasses is checkRequirements finding nothing at value, written as a
// boolean of its own: where findings list every bad quantity and then
// whether a required one is there, the boolean tests each quantity once,
// since a bad one fails the rule whatever follows.
func (r resourcesCEL) celPasses(names *celNames, value string, found bool) string {
	if !found {
		return strconv.FormatBool(len(r.RequireRequests)+len(r.RequireLimits) == 0)
	}
	at := func(key string) string { return value + "[" + celString(key) + "]" }
	present := func(key string) string {
		return fmt.Sprintf("%s in %s && %s != null", celString(key), value, at(key))
	}
	has := func(key, name string) string {
		return fmt.Sprintf("%s && %s in %s", present(key), celString(name), at(key))
	}
	valid := func(key string) string {
		k, q := names.next("k"), names.next("q")
		return fmt.Sprintf("(!(%s) || type(%s) == map && %s.all(%s, %s, %s))", present(key), at(key), at(key), k, q, celIsQuantity(q))
	}
	out := []string{fmt.Sprintf("type(%s) == map", value), valid("requests"), valid("limits")}
	for _, name := range r.RequireRequests {
		if r.RequestsWritten {
			out = append(out, has("requests", name))
			continue
		}
		out = append(out, fmt.Sprintf("(%s || %s)", has("requests", name), has("limits", name)))
	}
	for _, name := range r.RequireLimits {
		out = append(out, has("limits", name))
	}
	for _, b := range r.Ratios {
		band := bandCEL{b}
		rq, lq := names.next("rq"), names.next("lq")
		within := "!(" + band.celOutside(names, rq, lq) + ")"
		if band.Max != nil {
			within = fmt.Sprintf("(sign(%s) == 0 ? sign(%s) == 0 : %s)", rq, lq, within)
		} else {
			within = fmt.Sprintf("(sign(%s) == 0 || %s)", rq, within)
		}
		lim := at("limits") + "[" + celString(band.Resource) + "]"
		req := fmt.Sprintf("(%s ? %s : %s)", has("requests", band.Resource), at("requests")+"["+celString(band.Resource)+"]", lim)
		out = append(out, fmt.Sprintf("(!(%s) || %s || cel.bind(%s, %s, cel.bind(%s, %s, %s)))",
			has("limits", band.Resource), band.celClearlyWithin(names, req, lim),
			rq, celQuantity(req), lq, celQuantity(lim), within))
	}
	for _, b := range r.RequestBounds {
		req, lim := at("requests")+"["+celString(b.Resource)+"]", at("limits")+"["+celString(b.Resource)+"]"
		q := fmt.Sprintf("(%s ? %s : %s)", has("requests", b.Resource), celQuantity(req), celQuantity(lim))
		out = append(out, fmt.Sprintf("(!(%s || %s) || %s)", has("requests", b.Resource), has("limits", b.Resource), boundCEL{b}.celWithin(names, q)))
	}
	for _, b := range r.LimitBounds {
		lim := at("limits") + "[" + celString(b.Resource) + "]"
		out = append(out, fmt.Sprintf("(!(%s) || %s)", has("limits", b.Resource), boundCEL{b}.celWithin(names, celQuantity(lim))))
	}
	return "(" + strings.Join(out, " && ") + ")"
}

// boundCEL writes a quantity bound's checks in CEL.
type boundCEL struct{ rules.QuantityBound }

// celViolation is rules.QuantityBound.Violation in CEL for the quantity q
// of requests or limits (of), written as raw: a list of at most one
// finding at the CEL string at.
func (b boundCEL) celViolation(names *celNames, of, at, q, raw string) string {
	bq, braw := names.next("bq"), names.next("braw")
	finding := func(than string, bound *resource.Quantity) string {
		return fmt.Sprintf(`[%s + ": Invalid value: " + %s + %s + %s]`, at, celString(of+"."+b.Resource+" "), braw,
			celString(fmt.Sprintf(" is %s %s; allowed %s", than, bound.String(), b.Describe())))
	}
	out := "[]"
	if b.Max != nil {
		out = fmt.Sprintf("(%s.compareTo(quantity(%s)) > 0 ? %s : %s)", bq, celString(b.Max.String()), finding("more than", b.Max), out)
	}
	if b.Min != nil {
		out = fmt.Sprintf("(%s.compareTo(quantity(%s)) < 0 ? %s : %s)", bq, celString(b.Min.String()), finding("less than", b.Min), out)
	}
	return fmt.Sprintf("cel.bind(%s, %s, cel.bind(%s, %s, %s))", bq, q, braw, raw, out)
}

// celWithin tells whether the quantity q lies within the bound.
func (b boundCEL) celWithin(names *celNames, q string) string {
	bq := names.next("bq")
	var within []string
	if b.Min != nil {
		within = append(within, fmt.Sprintf("%s.compareTo(quantity(%s)) >= 0", bq, celString(b.Min.String())))
	}
	if b.Max != nil {
		within = append(within, fmt.Sprintf("%s.compareTo(quantity(%s)) <= 0", bq, celString(b.Max.String())))
	}
	return fmt.Sprintf("cel.bind(%s, %s, %s)", bq, q, strings.Join(within, " && "))
}

// celMultiply is n×q for the quantity q, by adding: the quantity library
// has add but no mul. Up to linearAdds it adds q n-1 times; above, it
// doubles and adds, binding each double, which costs a comprehension.
func celMultiply(names *celNames, q string, n int64) string {
	const linearAdds = 8
	switch {
	case n == 0:
		return "quantity('0')"
	case n < 0:
		return fmt.Sprintf("quantity('0').sub(%s)", celMultiply(names, q, -n))
	case n <= linearAdds:
		return q + strings.Repeat(".add("+q+")", int(n-1))
	}
	var doubles []string
	var terms []string
	prev := q
	for bit := 0; n>>bit != 0; bit++ {
		name := prev
		if bit > 0 {
			name = names.next("d")
			doubles = append(doubles, name, prev+".add("+prev+")")
		}
		if n>>bit&1 == 1 {
			terms = append(terms, name)
		}
		prev = name
	}
	expr := terms[0]
	for _, t := range terms[1:] {
		expr += ".add(" + t + ")"
	}
	for i := len(doubles) - 2; i >= 0; i -= 2 {
		expr = fmt.Sprintf("cel.bind(%s, %s, %s)", doubles[i], doubles[i+1], expr)
	}
	return expr
}
