package diff

import (
	"encoding/json"
	"slices"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// jsonText renders a schema's JSON value (a default, an enum value) in a
// canonical compact form, so that differently formatted but equal values
// compare equal; "" when absent.
func jsonText(v *apiextensionsv1.JSON) string {
	if v == nil || v.Raw == nil {
		return ""
	}
	var x any
	if err := json.Unmarshal(v.Raw, &x); err != nil {
		return string(v.Raw)
	}
	return render(x, true)
}

func floatText(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

func intText(i *int64) string {
	if i == nil {
		return ""
	}
	return strconv.FormatInt(*i, 10)
}

func boolText(b bool) string { return strconv.FormatBool(b) }

// enumValues lists a schema's enum values in canonical JSON, in order.
func enumValues(s *apiextensionsv1.JSONSchemaProps) []string {
	out := make([]string, len(s.Enum))
	for i := range s.Enum {
		out[i] = jsonText(&s.Enum[i])
	}
	return out
}

func enumSet(s *apiextensionsv1.JSONSchemaProps) map[string]bool {
	set := map[string]bool{}
	for _, v := range enumValues(s) {
		set[v] = true
	}
	return set
}

// compareLists says how the list new differs from old: the entries only
// old has (removed) and only new has (added), each in list order, and
// whether, with none of either, the lists still differ: the same entries
// in another order or repeated.
func compareLists(old, new []string) (removed, added []string, reordered bool) {
	inOld, inNew := make(map[string]bool, len(old)), make(map[string]bool, len(new))
	for _, s := range old {
		inOld[s] = true
	}
	for _, s := range new {
		inNew[s] = true
	}
	for _, s := range old {
		if !inNew[s] {
			removed = append(removed, s)
		}
	}
	for _, s := range new {
		if !inOld[s] {
			added = append(added, s)
		}
	}
	reordered = len(removed) == 0 && len(added) == 0 && !slices.Equal(old, new)
	return removed, added, reordered
}
