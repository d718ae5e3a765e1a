package rules

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The rule kinds that select or skip containers by name (resources'
// excludeContainers and requireAnyOf containerName, imageVersion's
// containerName and excludeContainers) read and validate names here, so
// that a name one kind rejects no other accepts.

// itemName is the name of a list item: its "name", when it is an object
// with a string there.
func itemName(item any) (string, bool) {
	m, _ := item.(map[string]any)
	name, ok := m["name"].(string)
	return name, ok
}

// validateContainerName checks a configured container name: a DNS-1123
// label, as the API server requires of a container's name. Any other name
// matches no container, so a rule that selects or skips by it would pass
// for working while it does nothing.
func validateContainerName(name string, path *field.Path) field.ErrorList {
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(path, name, "is not a container name: "+strings.Join(msgs, "; "))}
	}
	return nil
}

// validateContainerNames checks a list of container names: each a name,
// and each once.
func validateContainerNames(names []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, name := range names {
		errs = append(errs, validateContainerName(name, path.Index(i))...)
		if seen[name] {
			errs = append(errs, field.Duplicate(path.Index(i), name))
		}
		seen[name] = true
	}
	return errs
}
