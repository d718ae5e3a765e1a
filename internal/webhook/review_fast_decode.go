package webhook

import (
	"errors"
	"strconv"
	"unicode/utf8"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errNotFast says that fastDecodeReview leaves a body to sigs.k8s.io/json:
// it is not a review as the API server writes one, or it holds something
// the fast decoder does not read (an unknown or repeated key, a type it
// does not expect, a \u escape, invalid JSON or UTF-8, deep nesting).
var errNotFast = errors.New("not decoded by the fast path")

// maxFastDepth bounds the nesting the fast decoder follows; deeper bodies
// go to sigs.k8s.io/json, which bounds them itself.
const maxFastDepth = 512

// fastDecodeReview decodes an AdmissionReview as the API server writes it
// into what kjson.UnmarshalCaseSensitivePreserveInts gives for the same
// body, in one pass without reflection: the objects' numbers as int64 when
// they are integers that fit, else float64, each JSON object a fresh map.
// With any doubt it returns errNotFast, and the body is decoded by
// sigs.k8s.io/json as before; it never returns a review that decoder
// would not. FuzzFastDecodeReview compares the two.
func fastDecodeReview(body []byte) (*objectsReview, error) {
	d := &jsonReader{data: body}
	review := &objectsReview{}
	members := d.members()
	for key := range members.keys() {
		var err error
		switch string(key) {
		case "apiVersion":
			err = d.stringInto(&review.APIVersion)
		case "kind":
			err = d.stringInto(&review.Kind)
		case "request":
			if !d.null() {
				review.Request = &objectsRequest{}
				err = d.request(review.Request)
			}
		default:
			err = errNotFast
		}
		members.err = err
	}
	if members.err != nil {
		return nil, members.err
	}
	if d.space(); d.pos != len(d.data) {
		return nil, errNotFast
	}
	return review, nil
}

// request decodes an AdmissionRequest's members.
func (d *jsonReader) request(r *objectsRequest) error {
	members := d.members()
	for key := range members.keys() {
		var err error
		switch string(key) {
		case "uid":
			err = d.stringInto((*string)(&r.UID))
		case "kind":
			err = d.groupVersionKind(&r.Kind)
		case "resource":
			err = d.groupVersionResource(&r.Resource)
		case "subResource":
			err = d.stringInto(&r.SubResource)
		case "requestKind":
			if !d.null() {
				r.RequestKind = &metav1.GroupVersionKind{}
				err = d.groupVersionKind(r.RequestKind)
			}
		case "requestResource":
			if !d.null() {
				r.RequestResource = &metav1.GroupVersionResource{}
				err = d.groupVersionResource(r.RequestResource)
			}
		case "requestSubResource":
			err = d.stringInto(&r.RequestSubResource)
		case "name":
			err = d.stringInto(&r.Name)
		case "namespace":
			err = d.stringInto(&r.Namespace)
		case "operation":
			err = d.stringInto((*string)(&r.Operation))
		case "userInfo":
			err = d.userInfo(&r.UserInfo)
		case "object":
			err = d.objectInto(&r.Object)
		case "oldObject":
			err = d.objectInto(&r.OldObject)
		case "dryRun":
			err = d.dryRun(&r.DryRun)
		case "options":
			err = d.rawInto(&r.Options.Raw)
		default:
			err = errNotFast
		}
		members.err = err
	}
	return members.err
}

func (d *jsonReader) groupVersionKind(gvk *metav1.GroupVersionKind) error {
	members := d.members()
	for key := range members.keys() {
		switch string(key) {
		case "group":
			members.err = d.stringInto(&gvk.Group)
		case "version":
			members.err = d.stringInto(&gvk.Version)
		case "kind":
			members.err = d.stringInto(&gvk.Kind)
		default:
			members.err = errNotFast
		}
	}
	return members.err
}

func (d *jsonReader) groupVersionResource(gvr *metav1.GroupVersionResource) error {
	members := d.members()
	for key := range members.keys() {
		switch string(key) {
		case "group":
			members.err = d.stringInto(&gvr.Group)
		case "version":
			members.err = d.stringInto(&gvr.Version)
		case "resource":
			members.err = d.stringInto(&gvr.Resource)
		default:
			members.err = errNotFast
		}
	}
	return members.err
}

func (d *jsonReader) userInfo(u *authenticationv1.UserInfo) error {
	members := d.members()
	for key := range members.keys() {
		switch string(key) {
		case "username":
			members.err = d.stringInto(&u.Username)
		case "uid":
			members.err = d.stringInto(&u.UID)
		case "groups":
			members.err = d.stringList(&u.Groups)
		case "extra":
			members.err = d.extra(&u.Extra)
		default:
			members.err = errNotFast
		}
	}
	return members.err
}

// extra decodes a user's extra values; null leaves them nil. A null
// list of values is left to sigs.k8s.io/json.
func (d *jsonReader) extra(out *map[string]authenticationv1.ExtraValue) error {
	if d.null() {
		return nil
	}
	extra := map[string]authenticationv1.ExtraValue{}
	members := d.members()
	for key := range members.keys() {
		var values []string
		if members.err = d.stringList(&values); members.err == nil && values == nil {
			members.err = errNotFast
		}
		extra[string(key)] = values
	}
	*out = extra
	return members.err
}

// rawInto keeps a value's bytes, as runtime.RawExtension does: none for
// null.
func (d *jsonReader) rawInto(out *[]byte) error {
	if d.null() {
		return nil
	}
	d.space()
	start := d.pos
	if err := d.skip(0); err != nil {
		return err
	}
	*out = append([]byte(nil), d.data[start:d.pos]...)
	return nil
}

// stringList decodes an array of strings; null leaves it nil.
func (d *jsonReader) stringList(out *[]string) error {
	if d.null() {
		return nil
	}
	if !d.next('[') {
		return errNotFast
	}
	values := []string{}
	if !d.next(']') {
		for {
			s, err := d.str()
			if err != nil {
				return err
			}
			values = append(values, s)
			if d.next(']') {
				break
			}
			if !d.next(',') {
				return errNotFast
			}
		}
	}
	*out = values
	return nil
}

// objectInto decodes an object as unstructured content; null leaves it
// nil.
func (d *jsonReader) objectInto(out *map[string]any) error {
	if d.null() {
		return nil
	}
	if d.space(); d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return errNotFast
	}
	obj, err := d.object(0)
	*out = obj
	return err
}

func (d *jsonReader) dryRun(out **bool) error {
	if d.null() {
		return nil
	}
	v, err := d.value(maxFastDepth)
	b, ok := v.(bool)
	if err != nil || !ok {
		return errNotFast
	}
	*out = &b
	return nil
}

// stringInto decodes a string into out; null leaves it as it is, as
// encoding/json does.
func (d *jsonReader) stringInto(out *string) error {
	if d.null() {
		return nil
	}
	raw, escaped, err := d.rawString()
	if err != nil || escaped {
		if err == nil {
			*out, err = unescape(raw)
		}
		return err
	}
	// A review names its group, version and kind twice (kind and
	// requestKind, resource and requestResource): the string made for
	// the first serves the second.
	for _, seen := range d.seenStrings[:d.nSeen] {
		if seen == string(raw) {
			*out = seen
			return nil
		}
	}
	*out = string(raw)
	if d.nSeen < len(d.seenStrings) {
		d.seenStrings[d.nSeen], d.nSeen = *out, d.nSeen+1
	}
	return nil
}

// jsonReader reads JSON from data at pos. Each method reads one value,
// after any white space before it.
type jsonReader struct {
	data []byte
	pos  int
	// seenStrings are the review's own strings read so far (stringInto).
	seenStrings [8]string
	nSeen       int
}

// space skips JSON white space.
func (d *jsonReader) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// null reads a null if one is next.
func (d *jsonReader) null() bool {
	d.space()
	if len(d.data)-d.pos >= 4 && string(d.data[d.pos:d.pos+4]) == "null" {
		d.pos += 4
		return true
	}
	return false
}

// next reads the byte after white space, if it is c.
func (d *jsonReader) next(c byte) bool {
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

// memberKeys reads an object's keys for a loop that reads each value.
// A key seen before is left to sigs.k8s.io/json: it merges a repeated
// struct or map member where a fresh decode would replace it. The keys are
// the body's bytes, unescaped: no key of a review's own needs an escape.
type memberKeys struct {
	d *jsonReader
	// err ends the loop: the loop's body sets it when reading a value
	// fails, keys when the object is malformed.
	err error
	// seen are the keys read; reviews have few, and a scan of them
	// allocates nothing.
	seen [16][]byte
	n    int
}

func (d *jsonReader) members() *memberKeys {
	return &memberKeys{d: d}
}

// keys yields each key, the reader at its value.
func (m *memberKeys) keys() func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		d := m.d
		if !d.next('{') {
			m.err = errNotFast
			return
		}
		if d.next('}') {
			return
		}
		for {
			key, err := d.rawKey()
			if err == nil && (m.n == len(m.seen) || m.repeated(key)) {
				err = errNotFast
			}
			if err == nil && !d.next(':') {
				err = errNotFast
			}
			if err != nil {
				m.err = err
				return
			}
			m.seen[m.n], m.n = key, m.n+1
			if !yield(key) || m.err != nil {
				return
			}
			if d.next('}') {
				return
			}
			if !d.next(',') {
				m.err = errNotFast
				return
			}
		}
	}
}

func (m *memberKeys) repeated(key []byte) bool {
	for _, k := range m.seen[:m.n] {
		if string(k) == string(key) {
			return true
		}
	}
	return false
}

// rawKey reads a string without escapes and returns its bytes.
func (d *jsonReader) rawKey() ([]byte, error) {
	if !d.next('"') {
		return nil, errNotFast
	}
	start := d.pos
	for ; d.pos < len(d.data); d.pos++ {
		switch c := d.data[d.pos]; {
		case c == '"':
			d.pos++
			return d.data[start : d.pos-1], nil
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, errNotFast
		}
	}
	return nil, errNotFast
}

// value reads any value as encoding/json decodes it into an interface
// with sigs.k8s.io/json's PreserveInts: map[string]any, []any, string,
// int64 or float64, bool or nil.
func (d *jsonReader) value(depth int) (any, error) {
	if d.space(); d.pos >= len(d.data) {
		return nil, errNotFast
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	case d.literal("null"):
		return nil, nil
	}
	return nil, errNotFast
}

// object reads an object into a fresh map. A repeated key is not left to
// sigs.k8s.io/json here: inside an object's content it keeps the last
// value, as this does.
func (d *jsonReader) object(depth int) (map[string]any, error) {
	if depth++; depth > maxFastDepth {
		return nil, errNotFast
	}
	d.pos++ // {
	m := map[string]any{}
	if d.next('}') {
		return m, nil
	}
	for {
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		if !d.next(':') {
			return nil, errNotFast
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
		if d.next('}') {
			return m, nil
		}
		if !d.next(',') {
			return nil, errNotFast
		}
	}
}

// array reads an array into a fresh, non-nil slice.
func (d *jsonReader) array(depth int) ([]any, error) {
	if depth++; depth > maxFastDepth {
		return nil, errNotFast
	}
	d.pos++ // [
	items := []any{}
	if d.next(']') {
		return items, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if d.next(']') {
			return items, nil
		}
		if !d.next(',') {
			return nil, errNotFast
		}
	}
}

// literal reads word if it is next.
func (d *jsonReader) literal(word string) bool {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

// number reads a number with JSON's grammar, and converts it as
// sigs.k8s.io/json's PreserveInts does: without a '.', an int64 when
// strconv.ParseInt takes it, otherwise strconv.ParseFloat's float64.
func (d *jsonReader) number() (any, error) {
	text, dot, err := d.numberText()
	if err != nil {
		return nil, err
	}
	s := string(text)
	if !dot {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, errNotFast
	}
	return f, nil
}

// numberText reads a number with JSON's grammar; dot tells whether it has
// a fraction.
func (d *jsonReader) numberText() (text []byte, dot bool, err error) {
	start := d.pos
	digits := func() bool {
		from := d.pos
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
		}
		return d.pos > from
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case !digits():
		return nil, false, errNotFast
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if dot = true; !digits() {
			return nil, false, errNotFast
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if !digits() {
			return nil, false, errNotFast
		}
	}
	return d.data[start:d.pos], dot, nil
}

// skip reads a value without building it, checking it as value does.
func (d *jsonReader) skip(depth int) error {
	if d.space(); d.pos >= len(d.data) {
		return errNotFast
	}
	var err error
	switch c := d.data[d.pos]; {
	case c == '{', c == '[':
		if depth++; depth > maxFastDepth {
			return errNotFast
		}
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		d.pos++
		if d.next(end) {
			return nil
		}
		for {
			if c == '{' {
				if err = d.skipString(); err != nil {
					return err
				}
				if !d.next(':') {
					return errNotFast
				}
			}
			if err = d.skip(depth); err != nil {
				return err
			}
			if d.next(end) {
				return nil
			}
			if !d.next(',') {
				return errNotFast
			}
		}
	case c == '"':
		err = d.skipString()
	case c == '-' || c >= '0' && c <= '9':
		_, err = d.number()
	case d.literal("true"), d.literal("false"), d.literal("null"):
	default:
		err = errNotFast
	}
	return err
}

// skipString reads a string without building it, checking it as str does.
func (d *jsonReader) skipString() error {
	raw, escaped, err := d.rawString()
	if err == nil && escaped {
		_, err = unescape(raw)
	}
	return err
}

// str reads a string. Valid UTF-8 is kept as it is, as encoding/json
// keeps it; the escapes other than \u are decoded. Invalid UTF-8, which
// encoding/json replaces, a control character, which it refuses, and \u
// are left to sigs.k8s.io/json.
func (d *jsonReader) str() (string, error) {
	raw, escaped, err := d.rawString()
	switch {
	case err != nil:
		return "", err
	case escaped:
		return unescape(raw)
	}
	return string(raw), nil
}

// plainBytes are the bytes a string holds as they are: printable ASCII
// other than the quote and the backslash.
var plainBytes = func() (plain [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
	}
	return plain
}()

// rawString reads a string and returns its content as written, valid
// UTF-8 without control characters; escaped tells whether it holds a
// backslash.
func (d *jsonReader) rawString() (raw []byte, escaped bool, err error) {
	if !d.next('"') {
		return nil, false, errNotFast
	}
	start, ascii := d.pos, true
	for {
		for d.pos < len(d.data) && plainBytes[d.data[d.pos]] {
			d.pos++
		}
		if d.pos >= len(d.data) {
			return nil, false, errNotFast
		}
		switch c := d.data[d.pos]; {
		case c == '"':
			raw = d.data[start:d.pos]
			d.pos++
			if !ascii && !utf8.Valid(raw) {
				return nil, false, errNotFast
			}
			return raw, escaped, nil
		case c == '\\':
			// The escaped byte is skipped: it may be a quote.
			escaped = true
			d.pos += 2
		case c < 0x20:
			return nil, false, errNotFast
		default:
			ascii = false
			d.pos++
		}
	}
}

// escapes are the one-letter JSON escapes and what they stand for.
var escapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescape decodes a string's content with escapes other than \u.
func unescape(raw []byte) (string, error) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i >= len(raw) || escapes[raw[i]] == 0 {
			return "", errNotFast
		}
		out = append(out, escapes[raw[i]])
	}
	return string(out), nil
}
