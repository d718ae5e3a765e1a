package diff

import (
	"testing"
)

// TestValidationRuleImpact runs each new or changed rule against what the
// old schema lets a stored object hold. The compatible cases are the real
// false alarms of issue 38, reduced to a minimal schema each; the breaking
// ones must stay breaking.
func TestValidationRuleImpact(t *testing.T) {
	const objects = "; crdguard diff --objects replays the stored objects to decide"
	tests := []struct {
		name     string
		old, new string
		// wantImpact and wantMessage are those of the rule's change, the
		// spec node's only validation-rules-changed change.
		wantImpact  Impact
		wantMessage string
	}{
		{
			// gateway-api v1.2.1 → v1.3.0, HTTPRoute filters: cors came with
			// the rule that guards it.
			name:       "guarded by has() on a field added in the same diff",
			old:        `{type: object, required: [type], properties: {type: {type: string, enum: [RequestMirror]}}}`,
			new:        `{type: object, required: [type], x-kubernetes-validations: [{rule: "!(has(self.cors) && self.type != 'CORS')"}], properties: {type: {type: string, enum: [RequestMirror, CORS]}, cors: {type: object}}}`,
			wantImpact: Info, wantMessage: "a new rule no stored object can fail: self.cors is new: no stored object has it",
		},
		{
			// gateway-api v1.2.1 → v1.3.0: type: CORS came with the rule.
			name:       "compares with an enum value added in the same diff",
			old:        `{type: object, required: [type], properties: {type: {type: string, enum: [RequestMirror]}}}`,
			new:        `{type: object, required: [type], x-kubernetes-validations: [{rule: "!(!has(self.cors) && self.type == 'CORS')"}], properties: {type: {type: string, enum: [RequestMirror, CORS]}, cors: {type: object}}}`,
			wantImpact: Info, wantMessage: `a new rule no stored object can fail: self.type cannot be "CORS": the old enum lacks it`,
		},
		{
			// CloudNativePG v1.24.2 → v1.25.0, bootstrap.initdb.
			name:       "reads an existing field only when a new one is set",
			old:        `{type: object, properties: {encoding: {type: string}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "!has(self.builtinLocale) || self.localeProvider == 'builtin'"}], properties: {encoding: {type: string}, builtinLocale: {type: string}, localeProvider: {type: string}}}`,
			wantImpact: Info, wantMessage: "a new rule no stored object can fail: self.builtinLocale is new: no stored object has it",
		},
		{
			// CloudNativePG v1.24.2 → v1.25.0, postgresql.synchronous.
			name:       "a new field's default satisfies it",
			old:        `{type: object, properties: {standbyNamesPre: {type: array, items: {type: string}}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "self.dataDurability!='preferred' || (!has(self.standbyNamesPre) || self.standbyNamesPre.size()==0)"}], properties: {standbyNamesPre: {type: array, items: {type: string}}, dataDurability: {type: string, default: required, enum: [required, preferred]}}}`,
			wantImpact: Info, wantMessage: `a new rule no stored object can fail: self.dataDurability is new and defaults to "required"`,
		},
		{
			// flux: a provider allowed beside the old one.
			name:       "loosened: the old rule implies the new one",
			old:        `{type: object, x-kubernetes-validations: [{rule: "!has(self.serviceAccountName) || self.provider == 'azure'"}], properties: {provider: {type: string}, serviceAccountName: {type: string}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "!has(self.serviceAccountName) || (self.provider == 'azure' || self.provider == 'aws')"}], properties: {provider: {type: string}, serviceAccountName: {type: string}}}`,
			wantImpact: Info, wantMessage: "the rule changed, but no stored object can fail it: the old rules of this field imply it",
		},
		{
			name:       "a conjunct dropped",
			old:        `{type: object, x-kubernetes-validations: [{rule: "self.a > 0 && self.a < 9"}], properties: {a: {type: integer}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "self.a > 0"}], properties: {a: {type: integer}}}`,
			wantImpact: Info, wantMessage: "the rule changed, but no stored object can fail it: the old rules of this field imply it",
		},
		{
			name:       "tightened",
			old:        `{type: object, x-kubernetes-validations: [{rule: "self.a > 0"}], properties: {a: {type: integer}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "self.a > 0 && self.a < 9"}], properties: {a: {type: integer}}}`,
			wantImpact: Breaking, wantMessage: "the rule changed: stored objects it now rejects fail their next update (unless the rule ratchets on unchanged values)" + objects,
		},
		{
			// prometheus-operator v0.83.0 → v0.84.0, PrometheusAgent: mode
			// and replicas both existed, so a stored object can fail it.
			name:       "reads fields that existed before",
			old:        `{type: object, properties: {mode: {type: string, enum: [StatefulSet, DaemonSet]}, replicas: {type: integer}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "!(has(self.mode) && self.mode == 'DaemonSet' && has(self.replicas))"}], properties: {mode: {type: string, enum: [StatefulSet, DaemonSet]}, replicas: {type: integer}}}`,
			wantImpact: Breaking, wantMessage: "a new rule on an existing field: stored objects it rejects fail their next update (unless it ratchets on unchanged values)" + objects,
		},
		{
			// Selecting an absent field is an error, which rejects.
			name:       "reads a new field without a has() guard",
			old:        `{type: object, properties: {a: {type: string}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "self.b.size() < 3"}], properties: {a: {type: string}, b: {type: string}}}`,
			wantImpact: Breaking, wantMessage: "a new rule on an existing field: stored objects it rejects fail their next update (unless it ratchets on unchanged values)" + objects,
		},
		{
			name:       "a new field the old schema kept as an unknown field",
			old:        `{type: object, x-kubernetes-preserve-unknown-fields: true}`,
			new:        `{type: object, x-kubernetes-preserve-unknown-fields: true, x-kubernetes-validations: [{rule: "!has(self.b) || self.b == 'x'"}], properties: {b: {type: string}}}`,
			wantImpact: Breaking, wantMessage: "a new rule on an existing field: stored objects it rejects fail their next update (unless it ratchets on unchanged values)" + objects,
		},
		{
			// Not required: a stored object may lack type, and then
			// self.type is an error.
			name:       "compares an optional field with a new enum value",
			old:        `{type: object, properties: {type: {type: string, enum: [A]}}}`,
			new:        `{type: object, x-kubernetes-validations: [{rule: "self.type != 'B'"}], properties: {type: {type: string, enum: [A, B]}}}`,
			wantImpact: Breaking, wantMessage: "a new rule on an existing field: stored objects it rejects fail their next update (unless it ratchets on unchanged values)" + objects,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Compare(withSpec(t, tc.old), withSpec(t, tc.new))
			if err != nil {
				t.Fatal(err)
			}
			var rules []Change
			for _, ch := range changes {
				if ch.Check == validationRulesChanged.Name {
					rules = append(rules, ch)
				}
			}
			if len(rules) != 1 {
				t.Fatalf("validation-rules-changed: %q, want one change", summary(rules))
			}
			got := rules[0]
			if got.Impact != tc.wantImpact || got.Message != tc.wantMessage || got.Path != specPath+".x-kubernetes-validations[0]" {
				t.Errorf("got %s %s: %q\nwant %s %s: %q", got.Impact, got.Path, got.Message, tc.wantImpact, specPath+".x-kubernetes-validations[0]", tc.wantMessage)
			}
		})
	}
}
