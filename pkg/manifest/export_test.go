package manifest

import "io"

// DecodeBlockYAML, DecodeYAMLGeneral and DecodeYAML let the external
// tests, which read the corpora through internal/corpus, compare the
// decoders.
var (
	DecodeBlockYAML   = decodeBlockYAML
	DecodeYAMLGeneral = decodeYAMLGeneral
	DecodeYAML        = decodeYAML
	ComparePositions  = comparePositions
)

// EachPartText hands the text of every part of a source to yield, with
// the part's first line, as the decoders receive it.
func EachPartText(r io.Reader, source string, yield func(line int, text []byte) error) error {
	return Parts(r, source, func(p Part) error {
		if len(p.data) == 0 {
			return nil
		}
		return yield(p.Line, p.data)
	})
}
