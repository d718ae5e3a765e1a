package manifest

import (
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// decodeYAML decodes one document as kubectl sends it: YAML 1.1 through
// sigs.k8s.io/yaml's strict YAML-to-JSON conversion, then JSON with
// integers kept as int64. Block YAML that decodeBlockYAML is sure of takes
// its fast path, which gives the same value; everything else, and every
// error, comes from the general decoder.
func decodeYAML(data []byte) (any, error) {
	if v, ok := decodeBlockYAML(data); ok {
		return v, nil
	}
	return decodeYAMLGeneral(data)
}

// decodeYAMLGeneral is the general decoder: sigs.k8s.io/yaml, a text
// after a JSON document refused, then JSON.
func decodeYAMLGeneral(data []byte) (any, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, err
	}
	if err := refuseAfterJSON(data); err != nil {
		return nil, err
	}
	var content any
	if err := utiljson.Unmarshal(j, &content); err != nil {
		return nil, err
	}
	return content, nil
}
