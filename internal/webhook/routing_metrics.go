package webhook

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var unroutedDesc = prometheus.NewDesc("crdguard_policy_unrouted_kinds",
	"Kinds (or kind versions) a loaded GuardPolicy matches that no ValidatingWebhookConfiguration of crdguard sends to it: the policy is not enforced on them.",
	[]string{"policy"}, nil)

// RoutingCollector exposes crdguard_policy_unrouted_kinds, worked out at
// every scrape from the configurations as they are then, so a rule
// removed from a configuration shows without a restart.
type RoutingCollector struct {
	Routing *Routing
	Engines *EngineHolder
}

var _ prometheus.Collector = (*RoutingCollector)(nil)

func (c *RoutingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- unroutedDesc }

func (c *RoutingCollector) Collect(ch chan<- prometheus.Metric) {
	engine := c.Engines.Load()
	if engine == nil {
		return
	}
	// Bounded: a scrape must not hang on the API server.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The configurations once per scrape, whatever the number of policies.
	rules, err := c.Routing.ValidateRules(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(unroutedDesc, err)
		return
	}
	for name, match := range engine.Matches() {
		unrouted, err := c.Routing.unrouted(rules, match)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(unroutedDesc, err)
			return
		}
		ch <- prometheus.MustNewConstMetric(unroutedDesc, prometheus.GaugeValue, float64(len(unrouted)), name)
	}
}
