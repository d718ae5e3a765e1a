package report

import (
	"bytes"
	"encoding/json"
)

// JSONVersion identifies the JSON report schema below. It changes only when
// a change would break a consumer (a field removed, renamed or retyped);
// added fields keep it.
const JSONVersion = "crdguard.dev/report/v1"

// jsonWriter writes the report as one JSON document, indented by two spaces
// and ending in a newline:
//
//	{
//	  "version": "crdguard.dev/report/v1",
//	  "results": [
//	    {
//	      "source": "deploy/db.yaml",   // file, "-" for stdin
//	      "document": 0,                // 0-based index within source
//	      "notStream": true,            // omitted when false: source is not a YAML stream (a Go file), "document" means nothing
//	      "line": 12,                   // 1-based line the document starts on, 0 if unknown
//	      "apiVersion": "db.example.com/v1", // omitted when empty
//	      "kind": "MySQLCluster",       // omitted when empty
//	      "namespace": "default",       // omitted when empty (cluster-scoped)
//	      "name": "prod",               // omitted when empty
//	      "operation": "CREATE",        // omitted when empty
//	      "allowed": false,
//	      "skipped": true,              // omitted when false
//	      "skipReason": "...",          // omitted when empty
//	      "violations": [               // always an array, possibly empty
//	        {
//	          "field": "spec.replicas",
//	          "type": "FieldValueInvalid",
//	          "message": "Invalid value: 10: ...",
//	          "policy": "schema",       // GuardPolicy name, or "schema"
//	          "rule": "maximum",
//	          "enforcement": "Deny",    // "Deny", "Warn" or "Audit"
//	          "line": 40,               // omitted when 0: 1-based line in source of the field the finding is about
//	          "column": 5               // omitted when 0: 1-based column (characters) of that field
//	        }
//	      ],
//	      "warnings": ["..."],          // always an array, possibly empty
//	      "error": "..."                // omitted when empty
//	    }
//	  ],
//	  "summary": {"objects": 3, "allowed": 1, "denied": 1, "skipped": 1, "errors": 0}
//	}
//
// Every result is counted in exactly one summary bucket: error, else
// skipped, else allowed or denied by "allowed". Arrays are never null so
// that consumers such as jq can iterate without guarding against null.
// Each result is written as it is added, and the summary after the last:
// the bytes are those of Report encoded whole.
type jsonWriter struct {
	results int
}

func (j *jsonWriter) result(w *bytes.Buffer, r *Result) error {
	if j.results == 0 {
		w.WriteString("{\n  \"version\": \"" + JSONVersion + "\",\n  \"results\": [\n    ")
	} else {
		w.WriteString(",\n    ")
	}
	j.results++
	return encodeResult(w, "    ", r)
}

// encodeResult writes r as encodeJSON does, with its stored object written
// by writeJSONObject: the result without it is closed again after its last
// field, and the stored object and the error, the fields that follow it,
// are appended.
func encodeResult(w *bytes.Buffer, prefix string, r *Result) error {
	if len(r.Stored) == 0 { // omitempty
		return encodeJSON(w, prefix, r)
	}
	rest := *r
	rest.Stored, rest.Error = nil, ""
	start := w.Len()
	if err := encodeJSON(w, prefix, &rest); err != nil {
		return err
	}
	w.Truncate(w.Len() - len("\n"+prefix+"}"))
	field := ",\n" + prefix + "  "
	w.WriteString(field + `"stored": `)
	if err := writeJSONObject(w, prefix+"  ", r.Stored); err != nil {
		w.Truncate(start)
		return err
	}
	if r.Error != "" {
		w.WriteString(field + `"error": `)
		writeJSONString(w, r.Error)
	}
	w.WriteString("\n" + prefix + "}")
	return nil
}

func (j *jsonWriter) end(w *bytes.Buffer, s Summary) error {
	if j.results == 0 {
		w.WriteString("{\n  \"version\": \"" + JSONVersion + "\",\n  \"results\": [],\n  \"summary\": ")
	} else {
		w.WriteString("\n  ],\n  \"summary\": ")
	}
	if err := encodeJSON(w, "  ", s); err != nil {
		return err
	}
	_, err := w.WriteString("\n}\n")
	return err
}

// encodeJSON writes v indented by two spaces as a value nested at prefix,
// without the encoder's final newline.
func encodeJSON(w *bytes.Buffer, prefix string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	// Messages quote field values verbatim; escaping <, > and & as \u003c
	// would make them unreadable for no benefit outside HTML.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return err
}
