package selfsigned

import (
	"fmt"
	"time"
)

// caName is the common name of every CA, before its issuance time.
const caName = "crdguard-webhook-ca"

// fresh is a new CA and a serving certificate signed by it.
func (c Config) fresh(now time.Time) (*state, error) {
	ca, err := newCA(caName, now, c.CADuration)
	if err != nil {
		return nil, err
	}
	serving, err := newServing(ca, c.DNSNames, now, c.Duration)
	if err != nil {
		return nil, err
	}
	return &state{signing: ca, serving: serving}, nil
}

// advance brings s to what it should be at now and returns what it did, in
// words for the log; nothing when s is current. injected says the
// configurations hold s's bundle: only then may a new CA start signing.
func (c Config) advance(s *state, now time.Time, injected bool) ([]string, error) {
	var did []string
	// A requested CA rotation that is already under way is not restarted.
	rotateCA := false
	switch s.renew {
	case "":
	case RenewServing:
		s.serving = nil
		did = append(did, "renewal of the serving certificate requested")
	case RenewCA:
		rotateCA = s.next == nil
		did = append(did, "CA rotation requested")
	default:
		did = append(did, fmt.Sprintf("ignored %s=%q: want %q or %q", AnnotationRenew, s.renew, RenewServing, RenewCA))
	}
	s.renew = ""

	// The old CA leaves the bundle: every replica serves the new
	// certificate by now.
	if s.previous != nil && !now.Before(s.previousUntil) {
		s.previous, s.previousUntil = nil, time.Time{}
		did = append(did, "previous CA no longer trusted")
	}
	// The new CA has been trusted for an overlap: it signs from now on, once
	// the configurations are known to trust it.
	if s.next != nil && !now.Before(s.nextTrusted.Add(c.Overlap)) && injected {
		s.previous, s.previousUntil = s.signing.cert, now.Add(c.Overlap)
		s.signing, s.next, s.nextTrusted = s.next, nil, time.Time{}
		s.serving = nil
		did = append(did, "next CA signs")
	}
	// The CA is due: trust its successor first, sign with it later.
	if s.next == nil && (rotateCA || !now.Before(renewalTime(s.signing.cert))) {
		next, err := newCA(caName, now, c.CADuration)
		if err != nil {
			return did, err
		}
		s.next, s.nextTrusted = next, now
		did = append(did, "next CA trusted")
	}
	if reason := c.servingStale(s, now); reason != "" {
		serving, err := newServing(s.signing, c.DNSNames, now, c.Duration)
		if err != nil {
			return did, err
		}
		s.serving = serving
		did = append(did, "serving certificate issued: "+reason)
	}
	return did, nil
}

// servingStale says why s's serving certificate must be reissued, "" when
// it need not be.
func (c Config) servingStale(s *state, now time.Time) string {
	switch {
	case s.serving == nil:
		return "none usable"
	case s.serving.cert.CheckSignatureFrom(s.signing.cert) != nil:
		return "not signed by the signing CA"
	case !covers(s.serving.cert, c.DNSNames):
		return "DNS names changed"
	case !now.Before(renewalTime(s.serving.cert)):
		return "due"
	}
	return ""
}

// nextEvent is when s next needs advancing without anything else changing.
func (c Config) nextEvent(s *state) time.Time {
	next := renewalTime(s.serving.cert)
	if s.next != nil {
		next = earliest(next, s.nextTrusted.Add(c.Overlap))
	} else {
		next = earliest(next, renewalTime(s.signing.cert))
	}
	if s.previous != nil {
		next = earliest(next, s.previousUntil)
	}
	return next
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
