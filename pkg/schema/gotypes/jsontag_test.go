package gotypes

import (
	"reflect"
	"testing"
)

func TestParseTag(t *testing.T) {
	tests := []struct {
		tag  string
		want Tag
		skip bool
	}{
		{``, Tag{}, false},
		{`yaml:"x"`, Tag{}, false},
		{`json:"name"`, Tag{Present: true, Raw: "name", Name: "name"}, false},
		{`json:"name,omitempty,string"`, Tag{Present: true, Raw: "name,omitempty,string", Name: "name", Options: []string{"omitempty", "string"}}, false},
		{`json:",inline"`, Tag{Present: true, Raw: ",inline", Options: []string{"inline"}}, false},
		{`json:"-"`, Tag{Present: true, Raw: "-", Name: "-"}, true},
		{`json:"-,"`, Tag{Present: true, Raw: "-,", Name: "-"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			got := parseTag(tt.tag)
			if !reflect.DeepEqual(got, tt.want) || got.Skip() != tt.skip {
				t.Errorf("parseTag(%q) = %+v (skip %v), want %+v (skip %v)", tt.tag, got, got.Skip(), tt.want, tt.skip)
			}
		})
	}
}

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{
		"Replicas": "replicas", "DNSNames": "dnsNames", "URL": "url", "IsCA": "isCA", "ID": "id", "x": "x",
	} {
		if got := lowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidTagName(t *testing.T) {
	for name, want := range map[string]bool{
		"name": true, "x-y.z": true, "a b": true, "ünï": true, "": false, "owner's": false, `a\b`: false, `a"b`: false,
	} {
		if got := validTagName(name); got != want {
			t.Errorf("validTagName(%q) = %v, want %v", name, got, want)
		}
	}
}
