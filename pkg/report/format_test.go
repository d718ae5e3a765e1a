package report

import (
	"bytes"
	"errors"
	"testing"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr string
	}{
		{in: "text", want: Text},
		{in: "json", want: JSON},
		{in: "sarif", want: SARIF},
		{in: "junit", want: JUnit},
		{in: "markdown", want: Markdown},
		{in: "JSON", want: JSON},
		{in: " Sarif ", want: SARIF},
		{in: "yaml", wantErr: `unknown output format "yaml": valid formats are text, json, sarif, junit, markdown`},
		{in: "", wantErr: `unknown output format "": valid formats are text, json, sarif, junit, markdown`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFormat(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseFormat(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseFormat(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestFormatSet(t *testing.T) {
	f := Text
	if err := f.Set("junit"); err != nil || f != JUnit {
		t.Fatalf("Set(junit) = %v, format %q", err, f)
	}
	if err := f.Set("xml"); err == nil || f != JUnit {
		t.Fatalf("Set(xml) = %v, format %q; want an error and the format unchanged", err, f)
	}
	if f.Type() != "format" || f.String() != "junit" {
		t.Errorf("Type() = %q, String() = %q", f.Type(), f.String())
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	var buf bytes.Buffer
	err := Write(&buf, Format("JSON"), sampleReport(), Options{})
	want := `unknown output format "JSON": valid formats are text, json, sarif, junit, markdown`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q for an unknown format", buf.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWritePassesOnWriterError(t *testing.T) {
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			if err := Write(failingWriter{}, f, sampleReport(), Options{}); err == nil || err.Error() != "disk full" {
				t.Errorf("err = %v, want disk full", err)
			}
		})
	}
}
