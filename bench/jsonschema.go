package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// kubeconformSchemaLocation is where kubeconform finds the schemas that
// writeJSONSchemas writes under dir: one directory per API group, as in the
// CRD catalogs kubeconform's README points to. kubeconform fills in
// {{.Group}} with the full group and {{.ResourceKind}} lowercased.
func kubeconformSchemaLocation(dir string) string {
	return filepath.Join(dir, "{{.Group}}", "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
}

// writeJSONSchemas turns the CRDs in crdDirs into kubeconform's JSON schemas
// under dir, as kubeconform's scripts/openapi2jsonschema.py does (v0.8.0):
// one file per version that has a schema, named {kind}_{version}.json in
// lower case. The script is ported rather than run so the benchmark needs
// no Python packages; it writes into the working directory, which is the
// group directory here. It returns the number of files written.
func writeJSONSchemas(dir string, crdDirs []string) (int, error) {
	docs, err := manifest.ReadPaths(nil, crdDirs...)
	if err != nil {
		return 0, err
	}
	written := 0
	for _, doc := range docs {
		if doc.Err != nil || doc.Object.GetKind() != "CustomResourceDefinition" {
			continue // the script skips whatever is not a CRD, too
		}
		crd := doc.Object.Object
		spec, _ := crd["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			version, _ := v.(map[string]any)
			name, _ := version["name"].(string)
			versionSchema, _ := version["schema"].(map[string]any)
			openAPI, ok := versionSchema["openAPIV3Schema"]
			if !ok {
				continue // apiextensions.k8s.io/v1 has no spec.validation to fall back to
			}
			file := filepath.Join(dir, group, strings.ToLower(kind+"_"+name)+".json")
			if err := writeJSONSchema(file, openAPI); err != nil {
				return written, fmt.Errorf("%s: %w", doc.Position(), err)
			}
			written++
		}
	}
	return written, nil
}

// writeJSONSchema is the script's write_schema_file without
// DENY_ROOT_ADDITIONAL_PROPERTIES: the root object stays open (apiVersion,
// kind and metadata are not always declared), every nested object with
// properties is closed, which is what makes kubeconform -strict report
// unknown fields.
func writeJSONSchema(file string, openAPI any) error {
	openAPI = replaceIntOrString(additionalProperties(openAPI, true))
	data, err := json.MarshalIndent(openAPI, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// additionalProperties is the script's additional_properties: every map
// with "properties" and no "additionalProperties" gets
// "additionalProperties": false, except the top one when skip is set. Like
// the script it walks map values only, not lists, so allOf/anyOf/oneOf
// branches stay open. It modifies data in place.
func additionalProperties(data any, skip bool) any {
	m, ok := data.(map[string]any)
	if !ok {
		return data
	}
	if _, has := m["properties"]; has && !skip {
		if _, has := m["additionalProperties"]; !has {
			m["additionalProperties"] = false
		}
	}
	for _, v := range m {
		additionalProperties(v, false)
	}
	return data
}

// replaceIntOrString is the script's replace_int_or_string: a schema with
// "format": "int-or-string" becomes a oneOf of string and integer. CRDs
// normally say x-kubernetes-int-or-string with an anyOf of both types
// instead, which JSON Schema understands as it is, so this rarely fires.
func replaceIntOrString(data any) any {
	m, ok := data.(map[string]any)
	if !ok {
		return data
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			if v["format"] == "int-or-string" {
				out[k] = map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
			} else {
				out[k] = replaceIntOrString(v)
			}
		case []any:
			list := make([]any, len(v))
			for i, x := range v {
				list[i] = replaceIntOrString(x)
			}
			out[k] = list
		default:
			out[k] = v
		}
	}
	return out
}
