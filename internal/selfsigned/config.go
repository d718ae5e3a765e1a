package selfsigned

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/utils/clock"
)

// Defaults of Config.
const (
	// DefaultCADuration is a year: the CA is rotated, with overlaps, every
	// eight months.
	DefaultCADuration = 365 * 24 * time.Hour
	// DefaultDuration is 90 days, cert-manager's default: the serving
	// certificate is reissued every 60.
	DefaultDuration = 90 * 24 * time.Hour
	// DefaultOverlap is a day: far longer than the API server and every
	// replica need to see a changed caBundle or Secret (seconds), for
	// clients that copied ca.crt by other means.
	DefaultOverlap = 24 * time.Hour
	// DefaultResync is how often the Manager re-reads the Secret and the
	// configurations even when its watches report nothing.
	DefaultResync = time.Minute
)

// Config configures a Manager.
type Config struct {
	// Namespace and Name of the Secret holding the CAs and the serving
	// certificate. Required. The Manager creates it when it is missing.
	Namespace, Name string
	// DNSNames the serving certificate names, e.g. the webhook Service's
	// <service>.<namespace>.svc. Required.
	DNSNames []string
	// ValidatingWebhookConfigurations and MutatingWebhookConfigurations
	// are the names of the configurations whose every webhook's caBundle
	// the Manager keeps equal to ca.crt. A missing one is skipped until it
	// is created. Default: none.
	ValidatingWebhookConfigurations []string
	MutatingWebhookConfigurations   []string
	// CADuration is the lifetime of a CA. Default DefaultCADuration.
	CADuration time.Duration
	// Duration is the lifetime of a serving certificate, cut short to its
	// CA's. Default DefaultDuration.
	Duration time.Duration
	// Overlap is how long a new CA is trusted before it signs, and how long
	// the old one stays trusted after. At most a sixth of CADuration, so
	// that the old CA, renewed at two thirds of its life, is still valid
	// through both. Default DefaultOverlap.
	Overlap time.Duration
	// Resync is the longest the Manager goes without re-reading the Secret
	// and the configurations. Default DefaultResync.
	Resync time.Duration
	// Clock tells the time. Default the real one; tests step a fake one.
	Clock clock.Clock
}

// withDefaults returns c with every unset field defaulted.
func (c Config) withDefaults() Config {
	if c.CADuration == 0 {
		c.CADuration = DefaultCADuration
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Overlap == 0 {
		c.Overlap = DefaultOverlap
	}
	if c.Resync == 0 {
		c.Resync = DefaultResync
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	return c
}

// Validate reports every problem of a defaulted Config.
func (c Config) Validate() error {
	var errs []error
	if c.Namespace == "" || c.Name == "" {
		errs = append(errs, errors.New("the Secret's namespace and name are required"))
	}
	if len(c.DNSNames) == 0 {
		errs = append(errs, errors.New("at least one DNS name is required"))
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"CA duration", c.CADuration}, {"duration", c.Duration}, {"overlap", c.Overlap}, {"resync", c.Resync}} {
		if d.value <= 0 {
			errs = append(errs, fmt.Errorf("%s %s must be positive", d.name, d.value))
		}
	}
	if c.Overlap > MaxOverlap(c.CADuration) {
		errs = append(errs, fmt.Errorf("overlap %s is more than a sixth of the CA duration %s", c.Overlap, c.CADuration))
	}
	return errors.Join(errs...)
}

// MaxOverlap is the longest overlap a CA of lifetime caDuration allows: it
// is renewed with a third of its life left, which must hold both overlaps.
func MaxOverlap(caDuration time.Duration) time.Duration {
	return caDuration / 6
}
