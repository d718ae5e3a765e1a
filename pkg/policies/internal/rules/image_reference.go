package rules

import (
	"sync"
	"sync/atomic"

	"github.com/distribution/reference"
)

// imageReference is what the imageVersion rule reads of a parsed image
// reference.
type imageReference struct {
	tag       string // "" when the reference has none
	hasDigest bool
	err       error
}

// maxParsedImages and maxCachedImageLength bound parsedImages. A cluster
// runs few distinct images, each in many objects; a full cache starts
// again empty. A valid reference is at most a 255-character name, a tag
// and a digest: a longer string is parsed (and refused) every time.
const (
	maxParsedImages      = 4096
	maxCachedImageLength = 512
)

// parsedImages holds parseImage's results by reference: parsing runs
// distribution/reference's regular expression, which cost a quarter of
// evaluating the example GuardPolicy, and the same images come back on
// every request.
var parsedImages struct {
	refs sync.Map // string → imageReference
	size atomic.Int64
}

// parseImage parses image as the container runtime reads it: "mysql" is
// docker.io/library/mysql, a registry's port is no tag, "@sha256:..." is
// a digest.
func parseImage(image string) imageReference {
	if ref, ok := parsedImages.refs.Load(image); ok {
		return ref.(imageReference)
	}
	var out imageReference
	ref, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		out.err = err
	} else {
		if tagged, ok := ref.(reference.Tagged); ok {
			out.tag = tagged.Tag()
		}
		_, out.hasDigest = ref.(reference.Digested)
	}
	if len(image) > maxCachedImageLength {
		return out
	}
	if parsedImages.size.Add(1) > maxParsedImages {
		parsedImages.refs.Clear()
		parsedImages.size.Store(1)
	}
	parsedImages.refs.Store(image, out)
	return out
}
