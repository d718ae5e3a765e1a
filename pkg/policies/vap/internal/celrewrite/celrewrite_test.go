package celrewrite

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
		`cel.bind(a, x.y, a > 1 ? [] : ["m"])`:                                  `x.y > 1`,
		`cel.bind(a, f(x), a > 1 && a < 3 ? [] : ["m"])`:                        `[f(x)].all(a, a > 1 && a < 3)`,
		`cel.bind(a, f(x), a + a) > 1 ? [] : ["m"]`:                             `[f(x)].map(a, a + a)[0] > 1`,
		`cel.bind(a, x["y"]["z"], a + a + a + a + a > 1 ? [] : ["m"])`:          `[x["y"]["z"]].all(a, a + a + a + a + a > 1)`,
		`(a && b ? [] : ["x"]) + (a ? [] : ["y"])`:                              `a && b`,
		`a ? (a && b ? [] : ["x"]) : ["y"]`:                                     `a ? b : false`,
		`cel.bind(a, x.y, b ? [] : ["m: " + a])`:                                `b`,
		`m.map(k, k).sort().map(k, m[k] == "" ? ["empty " + k] : []).flatten()`: `m.all(k, !(m[k] == ""))`,
		`m.map(k, k + "x").sort().map(k, [k]).flatten()`:                        `m.map(k, k + "x").sort().all(k, false)`,
		`variables.l`:    `size(variables.l) == 0`,
		`xs.map(v, [v])`: `size(xs.map(v, [v])) == 0`,
		`object.?spec.orValue(null) == null ? [] : ["has a spec"]`: `object.?spec.orValue(null) == null`,
		// A walk's places are written out, each field read where it is known.
		`(c ? [{'p': dyn("a"), 'v': dyn(o["x"]), 'f': dyn(true)}] : [{'p': dyn("a"), 'v': dyn(null), 'f': dyn(false)}]).map(pl, pl.f ? (pl.v > 1 ? [] : ["big at " + pl.p]) : ["missing " + pl.p]).flatten()`: `c ? (o["x"] > 1) : false`,
		`[{'p': dyn("a"), 'v': dyn(o["x"]), 'f': dyn(true)}, {'p': dyn("b"), 'v': dyn(o["y"]), 'f': dyn(true)}].map(pl, pl.v > 1 ? [] : ["big"]).flatten()`:                                                   `o["x"] > 1 && o["y"] > 1`,
		`[[1], [2], [3]].map(pl, pl[0] > 1 ? [] : ["big"]).flatten()`: `[[1], [2], [3]].all(pl, pl[0] > 1)`,
	} {
		got, err := NoFindings(findings)
		if err != nil || got != want {
			t.Errorf("NoFindings(%s) = %s, %v; want %s", findings, got, err, want)
		}
	}
	if _, err := NoFindings(`[`); err == nil {
		t.Error("NoFindings([) gave no error")
	}
}

func TestCELLowerBinds(t *testing.T) {
	for expr, want := range map[string]string{
		// A selection is written in place, never inside string literals
		// or as a field name.
		`cel.bind(v1, object["spec"].replicas, v1 > 2 ? [] : ["v1 " + string(v1)])`: `(object["spec"].replicas > 2) ? [] : ["v1 " + string(object["spec"].replicas)]`,
		`cel.bind(v1, x, y.v1 + v12)`: `y.v1 + v12`,
		// Anything else is a one-item comprehension.
		`cel.bind(q, quantity(s), cel.bind(r, q.add(q), r.isZero()))`: `[quantity(s)].map(q, [q.add(q)].map(r, r.isZero())[0])[0]`,
		`cel.bind(d, q.add(q), d)`:                                    `q.add(q)`,
		`cel.bind(s, "a, b", s.split(", "))`:                          `["a, b"].map(s, s.split(", "))[0]`,
	} {
		if got, err := LowerBinds(expr); err != nil || got != want {
			t.Errorf("LowerBinds(%s)\n got %s, %v\nwant %s", expr, got, err, want)
		}
	}
}
