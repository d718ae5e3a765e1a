package rules

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// AnyOf is a compiled requireAnyOf group of a resources rule: for each of
// its resources, at least one of its places sets it.
//
// Decisions:
//   - The places are checked together per item of the list prefix they
//     share: the steps up to their last common "[*]". ECK's
//     spec.nodeSets[*].resources and
//     spec.nodeSets[*].podTemplate.spec.containers[*].resources share
//     spec.nodeSets[*], so every nodeSet must set the limit in one of
//     its two places; a limit in another nodeSet does not count. Paths
//     that share no list are checked once per object.
//   - A prefix list that is missing or empty has no items, so there is
//     nothing to require: that the list exists is the CRD schema's job.
//   - A place counts only with a valid quantity: a value that is no
//     quantity sets nothing.
//   - A request is the effective one: a place that sets the limit
//     requests it too, since Kubernetes sets a missing request to it.
//   - containerName keeps, of the items of its path's last "[*]", the one
//     so named; a list without it sets nothing at that place.
type AnyOf struct {
	// Prefix is the steps the places share, up to their last common
	// "[*]"; no steps for the object itself.
	Prefix   ObjectPath
	Places   []AnyOfPlace
	Limits   []string
	Requests []string
}

// AnyOfPlace is one place of an AnyOf.
type AnyOfPlace struct {
	Path          ObjectPath
	ContainerName string
}

func compileAnyOf(cfg *v1alpha1.ResourcesAnyOf, path *field.Path) (AnyOf, field.ErrorList) {
	var g AnyOf
	var errs field.ErrorList
	if len(cfg.Paths) < 2 {
		errs = append(errs, field.Invalid(path.Child("paths"), len(cfg.Paths), "must list at least two places; for one, use requireLimits or requireRequests"))
	}
	if len(cfg.Limits) == 0 && len(cfg.Requests) == 0 {
		errs = append(errs, field.Required(path.Child("limits"), "limits or requests is required"))
	}
	for _, list := range []struct {
		name  string
		names []string
	}{{"limits", cfg.Limits}, {"requests", cfg.Requests}} {
		seen := map[string]bool{}
		for i, name := range list.names {
			switch {
			case name == "":
				errs = append(errs, field.Required(path.Child(list.name).Index(i), "a resource name, like memory"))
			case seen[name]:
				errs = append(errs, field.Duplicate(path.Child(list.name).Index(i), name))
			}
			seen[name] = true
		}
	}
	g.Limits, g.Requests = cfg.Limits, cfg.Requests
	type placeKey struct{ path, container string }
	seenKeys := map[placeKey]bool{}
	for i, pc := range cfg.Paths {
		at := path.Child("paths").Index(i)
		p, err := parsePath(pc.Path)
		if err != nil {
			errs = append(errs, field.Invalid(at.Child("path"), pc.Path, err.Error()))
			continue
		}
		if k := (placeKey{pc.Path, pc.ContainerName}); seenKeys[k] {
			errs = append(errs, field.Duplicate(at, pc.Path))
		} else {
			seenKeys[k] = true
		}
		if pc.ContainerName != "" {
			errs = append(errs, validateContainerName(pc.ContainerName, at.Child("containerName"))...)
		}
		g.Places = append(g.Places, AnyOfPlace{Path: p, ContainerName: pc.ContainerName})
	}
	if len(errs) > 0 {
		return g, errs
	}
	g.Prefix = sharedListPrefix(g.Places)
	for i, pl := range g.Places {
		if pl.ContainerName != "" && pl.Path.LastEach() < len(g.Prefix.Steps) {
			prefix := "no list"
			if len(g.Prefix.Steps) > 0 {
				prefix = g.Prefix.Raw
			}
			errs = append(errs, field.Invalid(path.Child("paths").Index(i).Child("containerName"), pl.ContainerName,
				fmt.Sprintf("selects an item of the path's last [*], and %s has none after the prefix the paths share (%s)", pl.Path.Raw, prefix)))
		}
	}
	return g, errs
}

// sharedListPrefix is the steps all places' paths begin with, up to the
// last "[*]" among them.
func sharedListPrefix(places []AnyOfPlace) ObjectPath {
	common := places[0].Path.Steps
	for _, pl := range places[1:] {
		n := 0
		for n < len(common) && n < len(pl.Path.Steps) && common[n] == pl.Path.Steps[n] {
			n++
		}
		common = common[:n]
	}
	end := 0
	for i, s := range common {
		if s.Each {
			end = i + 1
		}
	}
	if end == 0 {
		return ObjectPath{}
	}
	p, err := parsePath(StepsText(common[:end], true))
	if err != nil {
		panic(err) // the steps came from a parsed path
	}
	return p
}

// StepsText writes steps as a path: from the root when root, else as
// what follows a path.
func StepsText(steps []PathStep, root bool) string {
	var b strings.Builder
	for _, s := range steps {
		switch {
		case s.Field != "":
			if !root || b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Field)
		case s.Each:
			b.WriteString("[*]")
		case s.Index >= 0:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		default:
			b.WriteString("[" + s.Key + "]")
		}
	}
	return b.String()
}

// check reports, per item of the prefix, each resource no place sets.
func (g *AnyOf) check(obj map[string]any) field.ErrorList {
	if len(g.Prefix.Steps) == 0 {
		return g.checkAt(nil, obj)
	}
	var errs field.ErrorList
	g.Prefix.visit(obj, func(path *field.Path, value any, found bool) {
		if found {
			errs = append(errs, g.checkAt(path, value)...)
		}
	})
	return errs
}

// checkAt checks one item of the prefix, value at path.
func (g *AnyOf) checkAt(path *field.Path, value any) field.ErrorList {
	var errs field.ErrorList
	places := func() string {
		texts := g.PlaceTexts()
		if len(g.Prefix.Steps) > 0 {
			for i := range texts {
				texts[i] = path.String() + texts[i]
			}
		}
		return JoinOr(texts)
	}
	for _, name := range g.Limits {
		if !g.sets(path, value, name, false) {
			errs = append(errs, field.Required(g.findingPath(path, "limits", name), AnyOfMessage("limits", name, places())))
		}
	}
	for _, name := range g.Requests {
		if !g.sets(path, value, name, true) {
			errs = append(errs, field.Required(g.findingPath(path, "requests", name), AnyOfMessage("requests", name, places())))
		}
	}
	return errs
}

// AnyOfMessage is the detail of a finding of a group for key ("limits"
// or "requests") and the resource name, at places.
func AnyOfMessage(key, name, places string) string {
	if key == "limits" {
		return fmt.Sprintf("no %s limit at %s; at least one of them must limit %s", name, places, name)
	}
	return fmt.Sprintf("no %s request or limit at %s; at least one of them must request %s (a limit counts: Kubernetes sets a missing request to it)", name, places, name)
}

// findingPath is where a finding goes below the prefix item at path.
func (g *AnyOf) findingPath(path *field.Path, key, name string) *field.Path {
	steps, leaf := g.FindingSteps()
	for _, s := range steps {
		path = s.child(path)
	}
	if leaf {
		path = path.Child(key, name)
	}
	return path
}

// FindingSteps are the steps, below the prefix, to where the group's
// findings go: the first place, up to its next "[*]". leaf tells that
// there is none, and a finding names the request or limit itself.
func (g *AnyOf) FindingSteps() (steps []PathStep, leaf bool) {
	rest := g.Places[0].Path.Steps[len(g.Prefix.Steps):]
	for i, s := range rest {
		if s.Each {
			return rest[:i], false
		}
	}
	return rest, true
}

// PlaceTexts name the places below the prefix, with their remaining
// "[*]" and containers: ".resources", ".podTemplate.spec.containers[*].resources
// (container elasticsearch)"; from the root when there is no prefix.
func (g *AnyOf) PlaceTexts() []string {
	from := len(g.Prefix.Steps)
	texts := make([]string, len(g.Places))
	for i, pl := range g.Places {
		texts[i] = StepsText(pl.Path.Steps[from:], from == 0)
		if pl.ContainerName != "" {
			texts[i] += " (container " + pl.ContainerName + ")"
		}
	}
	return texts
}

// sets tells whether a place below the prefix item value sets the
// resource's limit, or with request its effective request.
func (g *AnyOf) sets(path *field.Path, value any, name string, request bool) bool {
	from := len(g.Prefix.Steps)
	found := false
	for _, pl := range g.Places {
		pl.Path.visitItems(value, path, from, func(_ *field.Path, v any, ok bool, item any) {
			if found || !ok || !pl.selects(item) {
				return
			}
			m, _ := v.(map[string]any)
			found = setsQuantity(m, "limits", name) || request && setsQuantity(m, "requests", name)
		})
		if found {
			return true
		}
	}
	return false
}

// selects tells whether the place keeps item, the list item of its
// path's last "[*]".
func (pl AnyOfPlace) selects(item any) bool {
	if pl.ContainerName == "" {
		return true
	}
	name, _ := itemName(item)
	return name == pl.ContainerName
}

// setsQuantity tells whether m[key][name] is a valid quantity, read as
// quantities() reads one.
func setsQuantity(m map[string]any, key, name string) bool {
	rm, _ := m[key].(map[string]any)
	switch v := rm[name].(type) {
	case string:
		_, err := resource.ParseQuantity(v)
		return err == nil
	case int64, float64:
		return true
	}
	return false
}

// JoinOr joins "a", "a or b", "a, b or c".
func JoinOr(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
