package policies

import "testing"

func TestCELNoFindings(t *testing.T) {
	for findings, want := range map[string]string{
		`[]`:                                  `true`,
		`["a"]`:                               `false`,
		`c ? [] : ["x"]`:                      `c`,
		`c ? ["x"] : []`:                      `!c`,
		`c ? ["x"] : ["y"]`:                   `false`,
		`c ? variables.l : []`:                `c ? (size(variables.l) == 0) : true`,
		`(c ? [] : ["x"]) + (d ? [] : ["y"])`: `c && d`,
		`[] + (d ? [] : ["y"]) + ["z"]`:       `false`,
		`xs.map(v, v > 1 ? [] : ["big"]).flatten()`:                             `xs.all(v, v > 1)`,
		`xs.transformList(i, v, v ? [] : [string(i)]).flatten()`:                `xs.all(i, v, v)`,
		`cel.bind(a, x.y, a > 1 ? [] : ["m"])`:                                  `cel.bind(a, x.y, a > 1)`,
		`cel.bind(a, x.y, b ? [] : ["m: " + a])`:                                `b`,
		`m.map(k, k).sort().map(k, m[k] == "" ? ["empty " + k] : []).flatten()`: `m.map(k, k).sort().all(k, !(m[k] == ""))`,
		`variables.l`:    `size(variables.l) == 0`,
		`xs.map(v, [v])`: `size(xs.map(v, [v])) == 0`,
		`object.?spec.orValue(null) == null ? [] : ["has a spec"]`: `object.?spec.orValue(null) == null`,
	} {
		got, err := celNoFindings(findings)
		if err != nil || got != want {
			t.Errorf("celNoFindings(%s) = %s, %v; want %s", findings, got, err, want)
		}
	}
	if _, err := celNoFindings(`[`); err == nil {
		t.Error("celNoFindings([) gave no error")
	}
}

func TestLowerBinds(t *testing.T) {
	for expr, want := range map[string]string{
		// A selection is written in place, never inside string literals
		// or as a field name.
		`cel.bind(v1, object["spec"].replicas, v1 > 2 ? [] : ["v1 " + string(v1)])`: `(object["spec"].replicas > 2 ? [] : ["v1 " + string(object["spec"].replicas)])`,
		`cel.bind(v1, x, y.v1 + v12)`: `(y.v1 + v12)`,
		// Anything else is a one-item comprehension, innermost first.
		`cel.bind(q, quantity(s), cel.bind(r, q.add(q), r.isZero()))`: `[quantity(s)].map(q, [q.add(q)].map(r, r.isZero())[0])[0]`,
		`cel.bind(s, "a, b", s.split(", "))`:                          `["a, b"].map(s, s.split(", "))[0]`,
	} {
		if got := lowerBinds(expr); got != want {
			t.Errorf("lowerBinds(%s)\n got %s\nwant %s", expr, got, want)
		}
	}
}
