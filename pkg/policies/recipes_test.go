package policies

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestKafkaMetadataVersionRecipe runs the cel recipe that
// docs/guardpolicy.md gives for versions that are not semantic versions
// (Kafka's metadata.version, "4.1-IV1") on pairs of versions, and holds the
// document's copy of the rule equal to the golden case's.
func TestKafkaMetadataVersionRecipe(t *testing.T) {
	file := filepath.Join("testdata", "cel", "kafka-metadata-version", "policy.yaml")
	policy, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "guardpolicy.md"))
	if err != nil {
		t.Fatal(err)
	}
	rule := policy[bytes.Index(policy, []byte("  - name: metadata-version")):]
	if !bytes.Contains(doc, rule) {
		t.Errorf("docs/guardpolicy.md does not quote the rule of %s:\n%s", file, rule)
	}

	gps, err := PoliciesFromDocuments(t.Context(), goldencase.Documents(t, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := NewEngine(nil, gps...)
	if err != nil {
		t.Fatal(err)
	}
	object := func(version string) string {
		spec := "spec: {kafka: {}}"
		if version != "" {
			spec = fmt.Sprintf("spec: {kafka: {metadataVersion: %q}}", version)
		}
		return "{apiVersion: kafka.strimzi.io/v1beta2, kind: Kafka, metadata: {name: events, namespace: shop}, " + spec + "}"
	}
	// The finding shows the value at fieldPath, none when it is unset.
	const denied = "may not go down, and must be like 4.1-IV1: was "
	tests := []struct {
		old, cur string
		want     string // the violation, "" when allowed
	}{
		{old: "4.1-IV0", cur: "4.1-IV1"},
		{old: "4.0-IV3", cur: "4.1-IV0"},
		{old: "3.9-IV0", cur: "4.0-IV0"},
		{old: "4.1-IV1", cur: "4.1-IV1"},
		{old: "", cur: "4.1-IV1"},
		{old: "latest", cur: "4.0-IV0"},
		{old: "4.1-IV2", cur: "4.1-IV10"},
		{old: "4.1-IV10", cur: "4.1-IV2", want: `spec.kafka.metadataVersion: Invalid value: "4.1-IV2": ` + denied + "4.1-IV10, now 4.1-IV2"},
		{old: "4.1-IV0", cur: "4.0-IV3", want: `spec.kafka.metadataVersion: Invalid value: "4.0-IV3": ` + denied + "4.1-IV0, now 4.0-IV3"},
		{old: "4.10-IV0", cur: "4.9-IV0", want: `spec.kafka.metadataVersion: Invalid value: "4.9-IV0": ` + denied + "4.10-IV0, now 4.9-IV0"},
		{old: "4.1-IV1", cur: "4.1", want: `spec.kafka.metadataVersion: Invalid value: "4.1": ` + denied + "4.1-IV1, now 4.1"},
		{old: "4.1-IV1", cur: "", want: "spec.kafka.metadataVersion: Invalid value: " + denied + "4.1-IV1, now unset"},
	}
	for _, tt := range tests {
		t.Run(tt.old+" to "+tt.cur, func(t *testing.T) {
			res, err := engine.Evaluate(t.Context(), Request{
				Operation: v1alpha1.Update, Namespace: "shop",
				Object: goldencase.Object(t, object(tt.cur)), OldObject: goldencase.Object(t, object(tt.old)),
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res.Violations {
				got = append(got, v.Field+": "+v.Message)
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}
