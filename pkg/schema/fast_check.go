package schema

import (
	"math"
	"regexp"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// verdict is what the fast check knows of a value: valid, invalid, or
// that only kube-openapi's validator can tell.
type verdict uint8

const (
	unknown verdict = iota
	valid
	invalid
)

// valueType is a JSON type, a bit of a typeSet.
type valueType uint8

const (
	objectType valueType = 1 << iota
	arrayType
	stringType
	integerType
	numberType
	booleanType
)

// typeSet is a schema's types; none allows any value.
type typeSet uint8

func (t typeSet) has(v valueType) bool { return t&typeSet(v) != 0 }

var valueTypes = map[string]valueType{
	"object": objectType, "array": arrayType, "string": stringType,
	"integer": integerType, "number": numberType, "boolean": booleanType,
}

// importantPrefix marks errors that kube-openapi keeps from a failing oneOf
// branch even when another branch matches. An error message starts with its
// field path, so only a key with this prefix can make one.
const importantPrefix = "IMPORTANT!"

// check is one spec.Schema compiled for the fast path. It mirrors the
// validators kube-openapi's SchemaValidator runs on each kind of value
// and answers invalid only where kube-openapi certainly reports an error.
type check struct {
	// unsupported: the schema uses a keyword the check does not model.
	unsupported bool

	types  typeSet
	format string
	// formatKnown: strfmt.Default validates the format, so upstream does.
	formatKnown bool
	enum        []string
	hasEnum     bool
	// enumNotStrings: an enum value is not a string, so matching goes
	// through reflect conversions (the integer 65 matches "A").
	enumNotStrings bool

	maxLength, minLength *int64
	pattern              *regexp.Regexp

	number numberCheck

	items              *check
	maxItems, minItems *int64
	uniqueItems        bool

	properties           map[string]*check
	required             []string
	maxProps, minProps   *int64
	additionalProperties *check
	noAdditional         bool

	allOf, anyOf, oneOf []*check
	not                 *check
}

// numberCheck holds the numeric keywords with what kube-openapi does with
// them: typeName and format as its numberValidator derives them.
type numberCheck struct {
	typeName, format string
	maximum, minimum *bound
	multipleOf       *bound
	excMax, excMin   bool
}

// bound is a numeric keyword's value and whether kube-openapi compares an
// int64 value with it exactly: it converts the bound to int64, truncating a
// fraction, once the bound passed IsValueValidAgainstRange.
type bound struct {
	value float64
	// inRange: IsValueValidAgainstRange accepts the bound, so upstream
	// compares values of the schema's type natively.
	inRange bool
	// integral: the bound converts to int64 without loss.
	integral bool
}

// compileCheck compiles s and everything below it.
func compileCheck(s *spec.Schema) *check {
	c := &check{}
	if !fieldsSupported(s) {
		c.unsupported = true
		return c
	}
	for _, name := range s.Type {
		t, ok := valueTypes[name]
		if !ok {
			c.unsupported = true // "null", or no JSON type
			return c
		}
		c.types |= typeSet(t)
	}
	if s.Format != "" {
		// A format without a type, or with several, passes values through
		// kube-openapi's type validator by rules of its own.
		if c.types != typeSet(stringType) && c.types != typeSet(integerType) && c.types != typeSet(numberType) {
			c.unsupported = true
			return c
		}
		c.format = s.Format
		c.formatKnown = strfmt.Default.ContainsName(s.Format)
	}
	if len(s.Enum) > 0 {
		c.hasEnum = true
		for _, e := range s.Enum {
			str, ok := e.(string)
			if !ok {
				c.enumNotStrings = true
				break
			}
			c.enum = append(c.enum, str)
		}
	}
	c.maxLength, c.minLength = s.MaxLength, s.MinLength
	if s.Pattern != "" {
		// The engine kube-openapi uses; an invalid pattern fails every
		// string upstream, with a message of its own.
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			c.unsupported = true
			return c
		}
		c.pattern = re
	}
	c.number = compileNumber(s)

	if s.Items != nil {
		if len(s.Items.Schemas) > 0 {
			c.unsupported = true // tuple items
			return c
		}
		if s.Items.Schema != nil {
			c.items = compileCheck(s.Items.Schema)
		}
	}
	c.maxItems, c.minItems, c.uniqueItems = s.MaxItems, s.MinItems, s.UniqueItems

	if len(s.Properties) > 0 {
		c.properties = make(map[string]*check, len(s.Properties))
		for name, p := range s.Properties {
			c.properties[name] = compileCheck(&p)
		}
	}
	c.required = s.Required
	c.maxProps, c.minProps = s.MaxProperties, s.MinProperties
	if ap := s.AdditionalProperties; ap != nil {
		if !ap.Allows {
			c.noAdditional = true
		} else if ap.Schema != nil {
			c.additionalProperties = compileCheck(ap.Schema)
		}
	}

	c.allOf = compileChecks(s.AllOf)
	c.anyOf = compileChecks(s.AnyOf)
	c.oneOf = compileChecks(s.OneOf)
	if s.Not != nil {
		c.not = compileCheck(s.Not)
	}
	return c
}

func compileChecks(schemas []spec.Schema) []*check {
	var checks []*check
	for i := range schemas {
		checks = append(checks, compileCheck(&schemas[i]))
	}
	return checks
}

// compileNumber derives the type name and format as kube-openapi's
// numberValidator does, and classifies each bound with its own
// IsValueValidAgainstRange.
func compileNumber(s *spec.Schema) numberCheck {
	var n numberCheck
	if len(s.Type) == 1 {
		switch s.Type[0] {
		case "integer":
			n.typeName = "integer"
			if s.Format == "int32" || s.Format == "int64" {
				n.format = s.Format
			}
		case "number":
			n.typeName = "number"
			if s.Format == "float" || s.Format == "double" {
				n.format = s.Format
			}
		}
	}
	newBound := func(v *float64) *bound {
		if v == nil {
			return nil
		}
		return &bound{
			value:    *v,
			inRange:  validate.IsValueValidAgainstRange(*v, n.typeName, n.format, "", "") == nil,
			integral: *v == math.Trunc(*v) && math.Abs(*v) < 1<<63,
		}
	}
	n.maximum, n.minimum, n.multipleOf = newBound(s.Maximum), newBound(s.Minimum), newBound(s.MultipleOf)
	n.excMax, n.excMin = s.ExclusiveMaximum, s.ExclusiveMinimum
	return n
}

// eval tells whether kube-openapi's SchemaValidator finds no error in v.
// It stops at the first answer that is not valid: an unknown one may hide
// an invalid one, which the callers treat alike except inside not and
// oneOf, where unknown is the safe answer.
func (c *check) eval(v any) verdict {
	if c.unsupported {
		return unknown
	}
	r := unknown
	switch v := v.(type) {
	case nil:
		// On null kube-openapi runs only the type and enum validators.
		return unknown
	case map[string]any:
		if r = c.evalType(objectType, false); r == valid {
			if r = c.evalEnum(); r == valid {
				r = c.evalObject(v)
			}
		}
	case []any:
		if r = c.evalType(arrayType, true); r == valid {
			if r = c.evalEnum(); r == valid {
				r = c.evalArray(v)
			}
		}
	case string:
		if r = c.evalType(stringType, false); r == valid {
			if r = c.evalEnumString(v); r == valid {
				r = c.evalString(v)
			}
		}
	case int64:
		if r = c.evalType(integerType, false); r == valid {
			if r = c.evalEnum(); r == valid {
				r = c.evalInt(v)
			}
		}
	case float64:
		if r = c.evalType(numberType, false); r == valid {
			if r = c.evalEnum(); r == valid {
				r = c.evalFloat(v)
			}
		}
	case bool:
		if r = c.evalType(booleanType, false); r == valid {
			r = c.evalEnum()
		}
	}
	// Any other Go type is one JSON decoding does not produce: unknown.
	if r != valid {
		return r
	}
	return c.evalComposition(v)
}

// evalType is kube-openapi's type validator for a value of type got.
func (c *check) evalType(got valueType, isArray bool) verdict {
	switch {
	case c.types == 0 || c.types.has(got):
		return valid
	case c.types.has(numberType) && got == integerType:
		return valid
	case c.types.has(integerType) && got == numberType:
		// An integral float passes as an integer, then range checks
		// go through string round trips.
		return unknown
	case c.types.has(stringType) && c.format != "" && isArray:
		// A string with a format accepts a JSON array.
		return unknown
	}
	return invalid
}

// evalEnum is the enum of a value that is not a string: kube-openapi
// matches it through reflect conversions.
func (c *check) evalEnum() verdict {
	if c.hasEnum {
		return unknown
	}
	return valid
}

func (c *check) evalEnumString(s string) verdict {
	if !c.hasEnum {
		return valid
	}
	if c.enumNotStrings {
		return unknown
	}
	for _, e := range c.enum {
		if e == s {
			return valid
		}
	}
	return invalid
}

// evalString is kube-openapi's string and format validators. Lengths
// count runes, with upstream's own functions.
func (c *check) evalString(s string) verdict {
	if c.maxLength != nil && validate.MaxLength("", "", s, *c.maxLength) != nil {
		return invalid
	}
	if c.minLength != nil && validate.MinLength("", "", s, *c.minLength) != nil {
		return invalid
	}
	if c.pattern != nil && !c.pattern.MatchString(s) {
		return invalid
	}
	if c.formatKnown && c.types == typeSet(stringType) && !strfmt.Default.Validates(c.format, s) {
		return invalid
	}
	return valid
}

// evalInt is kube-openapi's number validator for an int64, which compares
// natively with bounds that pass its range check and converts them to
// int64 for that.
func (c *check) evalInt(i int64) verdict {
	n := &c.number
	switch {
	case n.typeName == "integer" && n.format == "int32" && (i < math.MinInt32 || i > math.MaxInt32):
		return unknown // kube-openapi's range check by string round trip
	case n.typeName == "number" && n.format == "float":
		return unknown
	}
	for _, b := range []*bound{n.maximum, n.minimum, n.multipleOf} {
		if b != nil && !(b.inRange && b.integral) {
			return unknown
		}
	}
	if b := n.maximum; b != nil && validate.MaximumInt("", "", i, int64(b.value), n.excMax) != nil {
		return invalid
	}
	if b := n.minimum; b != nil && validate.MinimumInt("", "", i, int64(b.value), n.excMin) != nil {
		return invalid
	}
	if b := n.multipleOf; b != nil {
		if b.value < 1 {
			return unknown
		}
		if validate.MultipleOfInt("", "", i, int64(b.value)) != nil {
			return invalid
		}
	}
	return valid
}

// evalFloat is kube-openapi's number validator for a float64.
func (c *check) evalFloat(f float64) verdict {
	n := &c.number
	if n.typeName != "number" || n.format == "float" {
		return unknown
	}
	if b := n.maximum; b != nil && validate.Maximum("", "", f, b.value, n.excMax) != nil {
		return invalid
	}
	if b := n.minimum; b != nil && validate.Minimum("", "", f, b.value, n.excMin) != nil {
		return invalid
	}
	if b := n.multipleOf; b != nil && validate.MultipleOf("", "", f, b.value) != nil {
		return invalid
	}
	return valid
}

func (c *check) evalArray(items []any) verdict {
	size := int64(len(items))
	if c.maxItems != nil && size > *c.maxItems || c.minItems != nil && size < *c.minItems {
		return invalid
	}
	if c.items != nil {
		for _, item := range items {
			if r := c.items.eval(item); r != valid {
				return r
			}
		}
	}
	if c.uniqueItems && validate.UniqueItems("", "", items) != nil {
		return invalid
	}
	return valid
}

func (c *check) evalObject(obj map[string]any) verdict {
	size := int64(len(obj))
	if c.maxProps != nil && size > *c.maxProps || c.minProps != nil && size < *c.minProps {
		return invalid
	}
	for _, name := range c.required {
		if _, ok := obj[name]; !ok {
			return invalid
		}
	}
	for key, value := range obj {
		if strings.HasPrefix(key, importantPrefix) {
			return unknown
		}
		p, ok := c.properties[key]
		switch {
		case ok:
		case c.noAdditional:
			return invalid
		case c.additionalProperties != nil:
			p = c.additionalProperties
		default:
			continue
		}
		if r := p.eval(value); r != valid {
			return r
		}
	}
	return valid
}

// evalComposition is kube-openapi's allOf, anyOf, oneOf and not. not and
// oneOf turn a branch's invalid into valid, so they need definite answers.
func (c *check) evalComposition(v any) verdict {
	for _, b := range c.allOf {
		if r := b.eval(v); r != valid {
			return r
		}
	}
	if len(c.anyOf) > 0 {
		r := invalid
		for _, b := range c.anyOf {
			switch b.eval(v) {
			case valid:
				r = valid
			case unknown:
				if r == invalid {
					r = unknown
				}
			}
			if r == valid {
				break
			}
		}
		if r != valid {
			return r
		}
	}
	if len(c.oneOf) > 0 {
		matched, undecided := 0, false
		for _, b := range c.oneOf {
			switch b.eval(v) {
			case valid:
				matched++
			case unknown:
				undecided = true
			}
		}
		switch {
		case matched > 1:
			return invalid
		case undecided:
			return unknown
		case matched == 0:
			return invalid
		}
	}
	if c.not != nil {
		switch c.not.eval(v) {
		case valid:
			return invalid
		case unknown:
			return unknown
		}
	}
	return valid
}
