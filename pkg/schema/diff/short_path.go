package diff

import "strings"

// ShortPath shortens a change's path for people: the node's place in the
// object rather than in the CRD, as CEL's fieldPath and kubectl explain
// name it, so that a line shows which field changed instead of a JSON
// path of up to hundreds of characters.
//
//	spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.rules.items.properties.filters.items.x-kubernetes-validations[12]
//	^.spec.rules[*].filters[*]/x-kubernetes-validations[12]
//
// "^" is the object's root, "[*]" any item of a list or value of a map,
// and what follows "/" the schema keyword that changed. The version is not
// in it: reports show Change.Version beside it. A path outside a version's
// schema (spec.names.kind, spec.versions[1].served) is already short and
// comes back as it is.
func ShortPath(path string) string {
	rest, ok := strings.CutPrefix(path, "spec.versions[")
	if !ok {
		return path
	}
	end := strings.Index(rest, "].schema.openAPIV3Schema")
	if end < 0 || strings.ContainsAny(rest[:end], ".[]") {
		return path
	}
	rest = rest[end+len("].schema.openAPIV3Schema"):]
	var b strings.Builder
	b.WriteString("^")
	for rest != "" {
		step, after := nextStep(rest)
		switch {
		case step == ".properties" && strings.HasPrefix(after, "["):
			key, next := nextStep(after)
			b.WriteString(key)
			rest = next
			continue
		case step == ".properties" && strings.HasPrefix(after, "."):
			name, next := nextStep(after)
			b.WriteString(name)
			rest = next
			continue
		case step == ".items" || step == ".additionalProperties":
			b.WriteString("[*]")
			rest = after
			continue
		}
		// A keyword of the node: the rest of the path is within it.
		b.WriteString("/")
		b.WriteString(strings.TrimPrefix(rest, "."))
		break
	}
	return b.String()
}

// nextStep splits the first step off a field path: ".name" or "[key]".
// A key in brackets ends at its first "]", as field.Path writes keys.
func nextStep(path string) (step, rest string) {
	if strings.HasPrefix(path, "[") {
		if end := strings.IndexByte(path, ']'); end >= 0 {
			return path[:end+1], path[end+1:]
		}
		return path, ""
	}
	if end := strings.IndexAny(path[1:], ".["); end >= 0 {
		return path[:end+1], path[end+1:]
	}
	return path, ""
}
