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
		`m.map(k, k).sort().map(k, m[k] == "" ? ["empty " + k] : []).flatten()`: `m.all(k, !(m[k] == ""))`,
		`m.map(k, k + "x").sort().map(k, [k]).flatten()`:                        `m.map(k, k + "x").sort().all(k, false)`,
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
