package gotypes

import (
	"reflect"
	"strings"
	"unicode"
)

// Tag is a parsed `json:"..."` struct tag.
type Tag struct {
	// Present is false when the field has no json tag at all.
	Present bool
	// Raw is the tag's text, as written.
	Raw string
	// Name is the name part before the first comma; it may be empty.
	Name string
	// Options are the comma-separated options after the name.
	Options []string
}

// parseTag reads the json key of a struct tag. It splits exactly as
// encoding/json does (name up to the first comma), so "-," has the name "-".
func parseTag(structTag string) Tag {
	raw, ok := reflect.StructTag(structTag).Lookup("json")
	if !ok {
		return Tag{}
	}
	name, opts, _ := strings.Cut(raw, ",")
	t := Tag{Present: true, Raw: raw, Name: name}
	if opts != "" {
		t.Options = strings.Split(opts, ",")
	}
	return t
}

// Has tells whether the tag carries option opt ("omitempty", "inline", ...).
func (t Tag) Has(opt string) bool {
	for _, o := range t.Options {
		if o == opt {
			return true
		}
	}
	return false
}

// Skip is encoding/json's json:"-": the field is never written. Only the
// exact text "-" means this; "-," names a field "-".
func (t Tag) Skip() bool { return t.Raw == "-" }

// OmitsZero tells whether the zero value of a scalar disappears on the wire.
func (t Tag) OmitsZero() bool { return t.Has("omitempty") || t.Has("omitzero") }

// validTagName is encoding/json's isValidTag: a name with any other character
// is ignored and the Go field name is used instead.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			// Backslash and quote chars are reserved, but otherwise any
			// punctuation chars are allowed in a tag name.
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// lowerCamel is the JSON name API conventions give a Go field name:
// "Replicas" → "replicas", "DNSNames" → "dnsNames", "URL" → "url".
func lowerCamel(goName string) string {
	r := []rune(goName)
	for i := range r {
		if !unicode.IsUpper(r[i]) {
			break
		}
		// Keep the last capital of an initialism when a word follows it.
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}
