package vap

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// compileDefaults compiles a defaults rule to a mutation of a
// MutatingAdmissionPolicy: the JSON patch the mutating webhook sends,
// computed by the API server. At each place the rule's paths reach, a
// missing limit becomes its request × the multiplier, written as
// resource.Quantity writes it; one "add" of the whole limits map where
// there is none, else one "add" per limit.
func compileDefaults(rule *rules.Defaults, c *compiler) (admissionregistrationv1.Mutation, []admissionregistrationv1.Variable, error) {
	var limits []defaultCEL
	for _, d := range rule.Limits {
		l, err := newDefaultCEL(d)
		if err != nil {
			return admissionregistrationv1.Mutation{}, nil, err
		}
		limits = append(limits, l)
	}
	places, helpers := celRulePlaces(c.names, rule.Paths, rule.Preset, func(p rules.ObjectPath) string {
		return celPointerPlaces(c.names, p, "object")
	})
	variable := c.names.next("places")
	helpers = append(helpers, admissionregistrationv1.Variable{Name: variable, Expression: strings.Join(places, " + ")})

	pl, lim, req := c.names.next("pl"), c.names.next("lim"), c.names.next("req")
	computed := make([]string, len(limits))
	var entries, perKey, none []string
	for i, l := range limits {
		computed[i] = c.names.next("l")
		entries = append(entries, fmt.Sprintf("?%s: %s == \"\" ? optional.none() : optional.of(%s)", celString(l.resource), computed[i], computed[i]))
		perKey = append(perKey, fmt.Sprintf(`(%[1]s == "" ? [] : [JSONPatch{op: "add", path: %[2]s.p + %[3]s, value: %[1]s}])`,
			computed[i], pl, celString("/limits/"+rules.EscapePointerToken(l.resource))))
		none = append(none, computed[i]+` == ""`)
	}
	patches := fmt.Sprintf(`type(%[1]s) == null_type ? (%[2]s ? [] : [JSONPatch{op: "add", path: %[3]s.p + "/limits", value: {%[4]s}}]) : %[5]s`,
		lim, strings.Join(none, " && "), pl, strings.Join(entries, ", "), strings.Join(perKey, " + "))
	for i := len(limits) - 1; i >= 0; i-- {
		patches = fmt.Sprintf("cel.bind(%s, %s, %s)", computed[i], limits[i].limit(c.names, lim, req), patches)
	}
	// A limits value that is no map gets no patch: one below it would not
	// apply, and a resources rule reports it.
	expression := fmt.Sprintf(`variables.%[1]s.filter(%[2]s, %[2]s.f && type(%[2]s.v) == map).map(%[2]s, `+
		`cel.bind(%[3]s, "limits" in %[2]s.v ? %[2]s.v["limits"] : null, type(%[3]s) != null_type && type(%[3]s) != map ? [] : `+
		`cel.bind(%[4]s, "requests" in %[2]s.v && type(%[2]s.v["requests"]) == map ? %[2]s.v["requests"] : {}, %[5]s))).flatten()`,
		variable, pl, lim, req, patches)
	return admissionregistrationv1.Mutation{
		PatchType: admissionregistrationv1.PatchTypeJSONPatch,
		JSONPatch: &admissionregistrationv1.JSONPatch{Expression: expression},
	}, helpers, nil
}

// defaultCEL computes one default limit in CEL.
type defaultCEL struct {
	resource string
	// The multiplier is whole + nanos/10⁹.
	whole, nanos int64
	// bytes rounds the limit up to whole units rather than nanos.
	bytes bool
}

// maxMultiplier keeps every product of the limit's arithmetic within
// int64 (see limit).
const maxMultiplier = 8_000_000_000

func newDefaultCEL(d rules.LimitDefault) (defaultCEL, error) {
	if d.Multiplier.Cmp(*resource.NewQuantity(maxMultiplier, resource.DecimalSI)) > 0 {
		return defaultCEL{}, needsWebhook("requestMultiplier %s of %s is over %d, beyond the 64-bit arithmetic of the compiled default", d.Multiplier.String(), d.Resource, int64(maxMultiplier))
	}
	nanos := d.Multiplier.ScaledValue(resource.Nano) // a quantity holds at most nano precision
	return defaultCEL{resource: d.Resource, whole: nanos / 1e9, nanos: nanos % 1e9, bytes: rules.CountsBytes(d.Resource)}, nil
}

// limit is a CEL string: the limit to set at the place whose limits map
// (or null) is lim and requests map is req, or "" when there is none to
// set: the limit is there, the request is not a nonzero quantity, or the
// product is over the largest quantity, 2⁶³-1. It is
// rules.multiplyQuantity in int arithmetic, which CEL checks for
// overflow. A request over 2⁶² in magnitude, or a negative one whose
// product is below -(2⁶³-1), gets none either, where the engine's
// arithmetic has no bound:
//
//   - |request| = I + F/10⁹, exactly: I from the quantity's float, then
//     corrected by the float of the small remainder and one comparison;
//     F from the float of the remainder under 1, which has at most nine
//     decimals.
//   - × (m + n/10⁹) = I·m + (I/10⁹)·n + [(I mod 10⁹)·n + F·m]/10⁹ +
//     F·n/10¹⁸, each term within int64 for a multiplier under
//     maxMultiplier; the last is rounded at the nanos toward +∞, as
//     inf.RoundCeil rounds: up in magnitude for a positive request, down
//     for a negative one.
//   - written as resource.Quantity.String writes it in the request's
//     format: binary suffixes for a whole number of at least 1024 whose
//     request had one, else the largest exponent of 10³ that keeps the
//     mantissa whole, as a suffix or as "e<n>".
func (d defaultCEL) limit(names *celNames, lim, req string) string {
	v := func(prefix string) string { return names.next(prefix) }
	r, q, neg, a, i0, i1, whole, frac := v("r"), v("q"), v("neg"), v("a"), v("i"), v("i"), v("whole"), v("frac")
	n, p, pw, pf := v("n"), v("p"), v("pw"), v("pf")
	const g = "1000000000"
	// The product's whole part before the carry from its nanos, and its
	// nanos: those of the request's fraction rounded up for a positive
	// request, down in magnitude for a negative one.
	wholeProduct := fmt.Sprintf("%s * %d", whole, d.whole)
	tooLarge := fmt.Sprintf("%s > %d", whole, math.MaxInt64/d.whole)
	nanos := fmt.Sprintf("%s * %d", frac, d.whole)
	if d.nanos != 0 {
		wholeProduct += fmt.Sprintf(" + (%s / %s) * %d", whole, g, d.nanos)
		tooLarge += fmt.Sprintf(" || %s * %d > %d - (%s / %s) * %d", whole, d.whole, int64(math.MaxInt64), whole, g, d.nanos)
		nanos += fmt.Sprintf(" + (%[1]s %% %[2]s) * %[3]d + (%[4]s * %[3]d + (%[5]s ? 0 : 999999999)) / %[2]s", whole, g, d.nanos, frac, neg)
	}
	var written string
	if d.bytes {
		// Bytes are whole: the nanos round a positive product up, and a
		// negative one toward zero, maybe to zero, which has no sign.
		bw := v("bw")
		written = fmt.Sprintf(`cel.bind(%[1]s, %[2]s + (!%[3]s && %[4]s > 0 ? 1 : 0), %[1]s == 0 ? "0" : %[5]s)`, bw, pw, neg, pf, d.format(names, r, neg, bw, "0"))
	} else {
		written = d.format(names, r, neg, pw, pf)
	}
	product := fmt.Sprintf(`cel.bind(%[1]s, %[2]s, cel.bind(%[3]s, %[4]s, %[3]s > %[5]d - %[1]s / %[6]s ? "" : `+
		`cel.bind(%[7]s, %[3]s + %[1]s / %[6]s, cel.bind(%[8]s, %[1]s %% %[6]s, !%[9]s && %[7]s == %[5]d && %[8]s > 0 ? "" : %[10]s))))`,
		n, nanos, p, wholeProduct, int64(math.MaxInt64), g, pw, pf, neg, written)
	value := fmt.Sprintf("%s[%s]", req, celString(d.resource))
	return fmt.Sprintf(`(type(%[1]s) == map && %[2]s in %[1]s && %[1]s[%[2]s] != null || !(%[2]s in %[3]s && %[4]s) ? "" : `+
		`cel.bind(%[5]s, %[6]s, cel.bind(%[7]s, quantity(%[5]s), sign(%[7]s) == 0 ? "" : `+
		`cel.bind(%[8]s, sign(%[7]s) < 0, cel.bind(%[9]s, %[8]s ? quantity("0").sub(%[7]s) : %[7]s, `+
		`%[9]s.compareTo(quantity("4611686018427387904")) > 0 ? "" : `+
		`cel.bind(%[10]s, int(%[9]s.asApproximateFloat()), `+
		`cel.bind(%[11]s, %[10]s + int(%[9]s.sub(quantity(string(%[10]s))).asApproximateFloat()), `+
		`cel.bind(%[12]s, quantity(string(%[11]s)).compareTo(%[9]s) > 0 ? %[11]s - 1 : %[11]s, `+
		`cel.bind(%[13]s, int(%[9]s.sub(quantity(string(%[12]s))).asApproximateFloat() * 1e9 + 0.5), `+
		`%[14]s ? "" : %[15]s)))))))))`,
		lim, celString(d.resource), req, celIsQuantity(value),
		r, celScalarString(value), q, neg, a, i0, i1, whole, frac, tooLarge, product)
}

// quantityFormat are the variables format reads: powers of 10 and of
// 1024 that fit an int64, and the DecimalSI suffixes by exponent.
var quantityFormat = []admissionregistrationv1.Variable{
	{Name: "pow10", Expression: celInts(powers(10, 18))},
	{Name: "pow1024", Expression: celInts(powers(1024, 6))},
	{Name: "decimal_suffixes", Expression: `{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}`},
}

// powers are base⁰ to baseⁿ.
func powers(base int64, n int) []int64 {
	out := []int64{1}
	for len(out) <= n {
		out = append(out, out[len(out)-1]*base)
	}
	return out
}

// celInts is a CEL list of int literals.
func celInts(list []int64) string {
	items := make([]string, len(list))
	for i, n := range list {
		items[i] = strconv.FormatInt(n, 10)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// format writes the magnitude pw + pf/10⁹, negative when neg is true, in
// the format of the request r; pf is "0" for whole bytes. A power of 10
// or 1024 divides a number when every smaller one does, so counting
// those that divide it, less 1 for 1, finds the exponent.
func (d defaultCEL) format(names *celNames, r, neg, pw, pf string) string {
	k, t, e, fd, p := names.next("k"), names.next("t"), names.next("e"), names.next("fd"), names.next("p")
	binarySI := fmt.Sprintf(`cel.bind(%[1]s, variables.pow1024.filter(%[2]s, %[3]s %% %[2]s == 0).size() - 1, string(%[3]s / variables.pow1024[%[1]s]) + ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][%[1]s])`,
		k, p, pw)
	suffix := func(exponent string) string {
		return fmt.Sprintf(`(%[1]s.matches("[eE][-+]?[0-9]+$") ? (%[2]s == 0 ? "" : "e" + string(%[2]s)) : variables.decimal_suffixes[%[2]s])`, r, exponent)
	}
	whole := fmt.Sprintf(`cel.bind(%[1]s, variables.pow10.filter(%[2]s, %[3]s %% %[2]s == 0).size() - 1, cel.bind(%[4]s, %[1]s - %[1]s %% 3, string(%[3]s / variables.pow10[%[4]s]) + %[5]s))`,
		t, p, pw, e, suffix(e))
	if pf == "0" {
		return fmt.Sprintf(`(%[1]s ? "-" : "") + (%[2]s.endsWith("i") && %[3]s >= 1024 ? %[4]s : %[5]s)`, neg, r, pw, binarySI, whole)
	}
	// k decimals of the nanos (3, 6 or 9), then "n", "u" or "m".
	fraction := fmt.Sprintf(`cel.bind(%[1]s, variables.pow10.filter(%[2]s, %[3]s %% %[2]s == 0).size() - 1, cel.bind(%[4]s, 9 - %[1]s + %[1]s %% 3, `+
		`cel.bind(%[5]s, %[3]s / variables.pow10[9 - %[4]s], (%[6]s == 0 ? string(%[5]s) : string(%[6]s) + string(variables.pow10[%[4]s] + %[5]s).substring(1)) + %[7]s)))`,
		t, p, pf, k, fd, pw, suffix("-"+k))
	decimal := fmt.Sprintf("(%s == 0 ? %s : %s)", pf, whole, fraction)
	return fmt.Sprintf(`(%[1]s ? "-" : "") + (%[2]s.endsWith("i") && %[3]s >= 1024 && %[4]s == 0 ? %[5]s : %[6]s)`, neg, r, pw, pf, binarySI, decimal)
}
