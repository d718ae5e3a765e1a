package vap

import (
	"fmt"
	"strings"

	"github.com/distribution/reference"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// semverStrictRE is rules.ParseSemanticVersion as one regular expression: the
// "v" prefix and optional minor and patch of versionRE, and semver.Parse's
// rules for pre-release identifiers (no leading zeros in numbers) and
// build identifiers (not empty). CEL has no semver parser that leaves minor
// and patch out, so the compiled rules use this; a test holds it to
// rules.ParseSemanticVersion.
const semverStrictRE = `^v?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?(\.(0|[1-9][0-9]*))?` +
	`(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?` +
	`(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`

// celSemverKey is what sameAs compares of a version that matches
// semverStrictRE: the version without its "v" prefix and build metadata.
// Two versions written to the same precision have the same precedence
// exactly when these strings are equal (numbers have no leading zeros).
func celSemverKey(v string) string {
	return fmt.Sprintf(`(%[1]s.startsWith("v") ? %[1]s.substring(1) : %[1]s).split("+")[0]`, v)
}

// compileImageVersion compiles an imageVersion rule. Image references are
// parsed with distribution/reference's own grammar (ReferenceRegexp): a
// registry port is not a tag, and "@" starts a digest. Differences stay in
// the messages of invalid references: the engine names the reference
// library's reason (uppercase names, bad digests), the policy says
// "invalid reference format".
func compileImageVersion(rule *rules.ImageVersion, c *compiler) ([]ruleCEL, error) {
	if rule.VersionPath == nil {
		return nil, needsWebhook("imageVersion without versionPath is not compiled: the compiled tag checks compare each tag with a declared version, and this rule declares none")
	}
	if rule.TagPattern != nil {
		return nil, needsWebhook("tagPattern is not compiled: Kubernetes CEL has no regular-expression groups, so the version cannot be read out of the tag")
	}
	ir := imageVersionCEL{rule}
	// Digest-only images have the enforcement of digestOnly: a check of
	// their own when it is weaker than the rule's.
	if rules.Weaker(ir.DigestOnly, c.enforcement) == c.enforcement {
		return []ruleCEL{{findings: ir.celCheck(c.names, allImageFindings), summary: imageVersionSummary(rule, false)}}, nil
	}
	return []ruleCEL{
		{findings: ir.celCheck(c.names, mismatchFindings), summary: imageVersionSummary(rule, false)},
		{findings: ir.celCheck(c.names, digestOnlyFindings), enforcement: ir.DigestOnly, check: "digest_only", summary: imageVersionSummary(rule, true)},
	}, nil
}

// imageVersionCEL writes an imageVersion rule's checks in CEL.
type imageVersionCEL struct{ *rules.ImageVersion }

// imageFindings selects the findings of a compiled imageVersion check.
type imageFindings int

const (
	mismatchFindings   imageFindings = iota // every finding but those of digest-only images
	digestOnlyFindings                      // those of digest-only images alone
	allImageFindings                        // both
)

// celCheck is the rule's Check in CEL, with the findings that f selects.
func (r imageVersionCEL) celCheck(names *celNames, f imageFindings) string {
	atText := r.VersionPath.FieldPath().String() // versionPath has no [*]
	// No version while an image is set: rules.checkVersionAbsent.
	absent := "[]"
	if r.VersionAbsent == v1alpha1.DenyVersionAbsent && f != digestOnlyFindings {
		absent = fmt.Sprintf(`(%s ? [%s] : [])`, r.celSetsImage(names), celString(atText+": Required value: cannot show the images agree: "+atText+
			" is not set, so the operator runs a default version that crdguard cannot know; set it to the images' version (versionAbsent: Allow in the rule accepts this)"))
	}
	return celVisit(names, *r.VersionPath, "object", func(at celPath, raw string, found bool) string {
		if !found {
			return absent
		}
		want, isNumber := names.next("want"), names.next("isNumber")
		declared := celString(atText+" ") + " + " + want
		var images []string
		for _, p := range r.ImagePaths {
			images = append(images, celVisit(names, p, "object", func(path celPath, value string, found bool) string {
				if !found {
					return "[]"
				}
				return r.celImage(names, path, value, declared, want, isNumber, atText, f)
			}))
		}
		if r.ContainersPath != nil {
			images = append(images, celVisit(names, *r.ContainersPath, "object", func(path celPath, value string, found bool) string {
				if !found {
					return "[]"
				}
				return r.celContainers(names, path, value, declared, want, isNumber, atText, f)
			}))
		}
		checks := "[]"
		if len(images) > 0 {
			checks = strings.Join(images, " + ")
		}
		var versionErrors string
		if f != digestOnlyFindings {
			versionErrors = fmt.Sprintf(`[%s]`, celFinding(at, celTypeInvalidBody(raw, celString("must be a string or a number: the version that images are checked against"))))
		} else {
			versionErrors = "[]"
		}
		if r.Compare == v1alpha1.CompareSemver {
			notSemver := "[]"
			if f != digestOnlyFindings {
				notSemver = fmt.Sprintf(`[%s]`, celFinding(at, celInvalidBody(raw, celString("is not a semantic version (not like 8.0.36 or v1.2.3-rc.1), so images cannot be compared with it (compare: Semver)"))))
			}
			checks = fmt.Sprintf("(%s.matches(%s) ? %s : %s)", want, celString(semverStrictRE), checks, notSemver)
		}
		return fmt.Sprintf(`(type(%[1]s) == string || %[2]s ? cel.bind(%[3]s, %[4]s, cel.bind(%[5]s, type(%[1]s) != string, %[3]s == "" ? %[8]s : %[6]s)) : %[7]s)`,
			raw, celIsNumber(raw), want, celScalarString(raw), isNumber, checks, versionErrors, absent)
	})
}

// celSetsImage is setsImage in CEL: true when the object sets an image
// at an image path or of a selected container.
func (r imageVersionCEL) celSetsImage(names *celNames) string {
	var places []string
	for _, p := range r.ImagePaths {
		places = append(places, celVisit(names, p, "object", func(_ celPath, _ string, found bool) string {
			return map[bool]string{true: "[true]", false: "[]"}[found]
		}))
	}
	if r.ContainersPath != nil {
		places = append(places, celVisit(names, *r.ContainersPath, "object", func(_ celPath, value string, found bool) string {
			if !found {
				return "[]"
			}
			c := names.next("c")
			return fmt.Sprintf(`(type(%[1]s) == list && %[1]s.exists(%[2]s, %[3]s && "image" in %[2]s && %[2]s.image != null) ? [true] : [])`, value, c, r.celSelectedContainer(c))
		}))
	}
	if len(places) == 0 {
		return "false"
	}
	return "size(" + strings.Join(places, " + ") + ") > 0"
}

// celContainerName is a container's name, "" when it has none (itemName).
func celContainerName(c string) string {
	return fmt.Sprintf(`("name" in %[1]s && type(%[1]s.name) == string ? %[1]s.name : "")`, c)
}

// celSelectedContainer is true when the CEL value c is a container whose
// image the rule checks: containerName's, and not excluded.
func (r imageVersionCEL) celSelectedContainer(c string) string {
	s := fmt.Sprintf(`(type(%[1]s) == map && !(%[2]s in %[3]s)`, c, celContainerName(c), celStrings(r.Exclude))
	if r.ContainerName != "" {
		s += " && " + celContainerName(c) + " == " + celString(r.ContainerName)
	}
	return s + ")"
}

// celContainers is checkContainers in CEL.
func (r imageVersionCEL) celContainers(names *celNames, path celPath, value, declared, want, isNumber, atText string, f imageFindings) string {
	i, item := names.next("i"), names.next("c")
	containerName, selectedBy := celContainerName, r.celSelectedContainer
	selected := selectedBy(item)
	image := r.celImage(names, path.indexVar(i).child("image"), item+".image", declared, want, isNumber, atText, f)
	perItem := fmt.Sprintf(`(%s && "image" in %s && %s.image != null ? %s : [])`, selected, item, item, image)
	out := fmt.Sprintf(`%s.transformList(%s, %s, %s).flatten()`, value, i, item, perItem)
	if r.ContainerName != "" && f != digestOnlyFindings {
		// No such container: a NotFound at the list, naming the others.
		c, n := names.next("c"), names.next("n")
		listed := fmt.Sprintf(`%[1]s.filter(%[2]s, type(%[2]s) == map).map(%[2]s, strings.quote(%[3]s))`, value, c, containerName(c))
		notFound := celFinding(path, celString(fmt.Sprintf("Not found: %q: no container has the name that containerName selects, so its image cannot be checked against ", r.ContainerName))+
			fmt.Sprintf(` + %s + (%s.size() > 0 ? "; containers: " + %s.join(", ") : "")`, declared, n, n))
		out = fmt.Sprintf(`%s + cel.bind(%s, %s, %s.exists(%s, %s) ? [] : [%s])`, out, n, listed, value, c, selectedBy(c), notFound)
	}
	return fmt.Sprintf(`(type(%s) == list ? %s : %s)`, value, out,
		map[bool]string{true: "[]", false: fmt.Sprintf(`[%s]`, celFinding(path, celTypeInvalidBody(value, celString("must be a list of containers"))))}[f == digestOnlyFindings])
}

// celImage is checkImage in CEL.
func (r imageVersionCEL) celImage(names *celNames, path celPath, value, declared, want, isNumber, atText string, f imageFindings) string {
	img, named, tag := names.next("img"), names.next("named"), names.next("tag")
	invalid := fmt.Sprintf(`[%s]`, celFinding(path, celTypeInvalidBody(value, celString("must be an image reference"))))
	badRef := fmt.Sprintf(`[%s]`, celFinding(path, celInvalidBody(value, celString("is not a valid image reference: invalid reference format"))))
	if f == digestOnlyFindings {
		invalid, badRef = "[]", "[]"
	}
	// named is the reference without its digest; a tag follows the last
	// ":" after the last "/" (before it, a ":" is a registry port).
	hasDigest := img + `.contains("@")`
	hasTag := fmt.Sprintf(`(%[1]s.lastIndexOf(":") > %[1]s.lastIndexOf("/"))`, named)
	digestOnly, mismatch := "[]", "[]"
	if f != mismatchFindings {
		digestOnly = fmt.Sprintf(`[%s]`, celFinding(path, celInvalidBody(img,
			`"is pinned by digest only, so its version cannot be checked against " + `+declared+` + "; use name:tag@digest"`)))
	}
	if f != digestOnlyFindings {
		var agrees, why string
		switch r.Compare {
		case v1alpha1.CompareExact:
			agrees = tag + " == " + want
		case v1alpha1.CompareTagPrefix:
			agrees = fmt.Sprintf(`(%[1]s == %[2]s || %[1]s.startsWith(%[2]s + "-"))`, tag, want)
			why = `"; allowed: " + ` + want + ` + " or " + ` + want + ` + "-<variant>"`
		default:
			plus := names.next("plus")
			agrees = fmt.Sprintf(`cel.bind(%[1]s, %[2]s.replace("_", "+", 1), %[1]s.matches(%[3]s) && %[4]s == %[5]s)`,
				plus, tag, celString(semverStrictRE), celSemverKey(plus), celSemverKey(want))
			// "latest" (no tag) is plainly no version: no reason then.
			why = fmt.Sprintf(`(%s && !%s.replace("_", "+", 1).matches(%s) ? "; the tag is not a semantic version" : "")`, hasTag, tag, celString(semverStrictRE))
		}
		msg := fmt.Sprintf(`(%[1]s ? "image tag " + %[2]s + " does not match " : "has no tag, so it is latest, which does not match ") + %[3]s + %[4]s`,
			hasTag, tag, declared, celString(fmt.Sprintf(" (compare: %s)", r.Compare)))
		if why != "" {
			msg += " + " + why
		}
		msg += fmt.Sprintf(` + (%s ? "; %s is the number " + %s + ": quote the version in YAML to keep it as written" : "")`, isNumber, atText, want)
		mismatch = fmt.Sprintf(`(%s ? [] : [%s])`, agrees, celFinding(path, celInvalidBody(img, msg)))
	}
	verdict := fmt.Sprintf(`(%s && !%s ? %s : %s)`, hasDigest, hasTag, digestOnly, mismatch)
	return fmt.Sprintf(`(type(%[1]s) != string ? %[2]s : cel.bind(%[3]s, %[1]s, !%[3]s.matches(%[4]s) ? %[5]s : cel.bind(%[6]s, %[3]s.split("@")[0], cel.bind(%[7]s, %[8]s ? %[6]s.substring(%[6]s.lastIndexOf(":") + 1) : "latest", %[9]s))))`,
		value, invalid, img, celString(reference.ReferenceRegexp.String()), badRef, named, tag, hasTag, verdict)
}
