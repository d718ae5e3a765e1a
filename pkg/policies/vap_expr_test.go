package policies

import "testing"

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
		if got, err := celLowerBinds(expr); err != nil || got != want {
			t.Errorf("celLowerBinds(%s)\n got %s, %v\nwant %s", expr, got, err, want)
		}
	}
}
