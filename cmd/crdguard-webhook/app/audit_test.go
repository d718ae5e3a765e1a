package app

import (
	"testing"
	"time"
)

func TestAuditOptions(t *testing.T) {
	checkOptions(t, []string{"--audit", "--audit-interval", "10m", "--audit-qps", "5", "--audit-page-size", "100",
		"--leader-election-namespace", "crdguard-system",
	}, func(o *Options) {
		o.Audit, o.AuditInterval, o.AuditQPS, o.AuditPageSize = true, 10*time.Minute, 5, 100
		o.LeaderElectionNamespace = "crdguard-system"
	})
	if off := NewOptions(); off.Audit || off.AuditInterval != time.Hour || off.AuditQPS != 20 || off.AuditPageSize != 250 {
		t.Errorf("defaults: audit %v, interval %s, qps %v, page size %d; want off, 1h, 20, 250", off.Audit, off.AuditInterval, off.AuditQPS, off.AuditPageSize)
	}
}

func TestAuditOptionsInvalid(t *testing.T) {
	checkOptionsErrors(t, nil, []optionsError{{
		name: "policies from files",
		args: []string{"--audit", "--policies", examplePolicy},
		want: `audit: Invalid value: true: --audit audits the cluster's GuardPolicies; it cannot be used with --policies`,
	}, {
		name: "every bad value",
		args: []string{"--audit", "--audit-interval", "0s", "--audit-qps", "0", "--audit-page-size", "-1"},
		want: `[audit-interval: Invalid value: "0s": must be positive, audit-page-size: Invalid value: -1: must be positive, ` +
			`audit-qps: Invalid value: 0: must be positive]`,
	}, {
		// Without --audit the values are unused and not checked.
		name: "audit off",
		args: []string{"--policies", examplePolicy, "--audit-interval", "0s"},
	}})
}
