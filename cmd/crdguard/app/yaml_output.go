package app

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// plainObject is a generated object as a plain map, without the empty
// creationTimestamp and status a typed object would print.
func plainObject(obj runtime.Object) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return m, nil
}

// writeYAML writes docs as YAML documents. Failing to is crdguard's own
// error (exit 3), never the user's.
func writeYAML(out io.Writer, docs ...any) error {
	for i, doc := range docs {
		data, err := yaml.Marshal(doc)
		if err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
		if i > 0 {
			data = append([]byte("---\n"), data...)
		}
		if _, err := out.Write(data); err != nil {
			return outputError(err)
		}
	}
	return nil
}

// outputError is a failure to write the output, such as a closed pipe.
func outputError(err error) error {
	return &exitError{code: ExitInternal, err: fmt.Errorf("writing the output: %w", err)}
}

// writeObjectsFile writes objects as YAML documents to file, which flag
// names.
func writeObjectsFile(file, flag string, objects []runtime.Object) error {
	docs := make([]any, 0, len(objects))
	for _, obj := range objects {
		m, err := plainObject(obj)
		if err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
		docs = append(docs, m)
	}
	var buf bytes.Buffer
	if err := writeYAML(&buf, docs...); err != nil {
		return err
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return inputError(fmt.Errorf("%s: %w", flag, err))
	}
	return nil
}
