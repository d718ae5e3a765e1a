package diff

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestCRDChecks(t *testing.T) {
	type crd = apiextensionsv1.CustomResourceDefinition
	tests := []crdCase{
		{name: "no change", new: func(c *crd) {}},
		{name: "defaults made explicit", new: func(c *crd) { c.Spec.Names.Singular, c.Spec.Names.ListKind = "widget", "WidgetList" }},
		{name: "scope", new: func(c *crd) { c.Spec.Scope = apiextensionsv1.ClusterScoped },
			want: []string{"breaking scope-changed  spec.scope Namespaced → Cluster"}},
		{name: "version removed", new: func(c *crd) { c.Spec.Versions = c.Spec.Versions[1:] },
			want: []string{"breaking version-removed v1beta1 spec.versions[0] v1beta1 → <none>"}},
		{name: "version added", old: func(c *crd) { c.Spec.Versions = c.Spec.Versions[1:] },
			// v1beta1 declares no spec: writing an object back through it
			// loses the spec (served-versions-diverge has its own tests).
			want: []string{"info version-added v1beta1 spec.versions[0] <none> → v1beta1",
				"breaking served-versions-diverge v1 spec.versions[1].schema.openAPIV3Schema.properties.spec <none> → in v1 (storage), not in v1beta1"}},
		{name: "version reordered", new: func(c *crd) { c.Spec.Versions[0], c.Spec.Versions[1] = c.Spec.Versions[1], c.Spec.Versions[0] }},
		{name: "no longer served", new: func(c *crd) { c.Spec.Versions[0].Served = false },
			want: []string{"breaking version-unserved v1beta1 spec.versions[0].served true → false"}},
		{name: "served again", old: func(c *crd) { c.Spec.Versions[0].Served = false },
			want: []string{"info version-unserved v1beta1 spec.versions[0].served false → true"}},
		{name: "storage moved", new: func(c *crd) { c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = true, false },
			// Now a spec written through v1 is lost on the way to storage.
			want: []string{"warning storage-version-moved v1beta1 spec.versions[0].storage v1 → v1beta1",
				"breaking served-versions-diverge v1 spec.versions[1].schema.openAPIV3Schema.properties.spec <none> → in v1, not in v1beta1 (storage)"}},
		{name: "stored version removed", old: func(c *crd) { c.Status.StoredVersions = []string{"v1beta1", "v1"} }, new: func(c *crd) { c.Spec.Versions = c.Spec.Versions[1:] },
			want: []string{"breaking version-removed v1beta1 spec.versions[0] v1beta1 → <none>", "breaking stored-version-removed v1beta1 status.storedVersions v1beta1,v1 → <none>"}},
		{name: "stored versions trimmed", old: func(c *crd) { c.Status.StoredVersions = []string{"v1beta1", "v1"} }, new: func(c *crd) { c.Status.StoredVersions = []string{"v1"} }},
		{name: "kind", new: func(c *crd) { c.Spec.Names.Kind = "Gadget" },
			// The defaulted listKind and singular follow the kind.
			want: []string{"breaking names-changed  spec.names.kind Widget → Gadget", "breaking names-changed  spec.names.listKind WidgetList → GadgetList", "breaking names-changed  spec.names.singular widget → gadget"}},
		{name: "plural", new: func(c *crd) { c.Spec.Names.Plural = "widgetz" },
			want: []string{"breaking names-changed  spec.names.plural widgets → widgetz"}},
		{name: "shortNames and categories", new: func(c *crd) { c.Spec.Names.ShortNames, c.Spec.Names.Categories = []string{"w"}, nil },
			want: []string{"info name-aliases-changed  spec.names.shortNames wd → w", "info name-aliases-changed  spec.names.categories all → <none>"}},
		{name: "status subresource removed", new: func(c *crd) { c.Spec.Versions[1].Subresources.Status = nil },
			want: []string{"breaking subresources-changed v1 spec.versions[1].subresources.status {} → <none>"}},
		{name: "status subresource added", new: func(c *crd) {
			c.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
		}, want: []string{"warning subresources-changed v1beta1 spec.versions[0].subresources.status <none> → {}"}},
		{name: "scale removed", new: func(c *crd) { c.Spec.Versions[1].Subresources.Scale = nil },
			want: []string{`breaking subresources-changed v1 spec.versions[1].subresources.scale {"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"} → <none>`}},
		{name: "scale path changed", new: func(c *crd) { c.Spec.Versions[1].Subresources.Scale.SpecReplicasPath = ".spec.size" },
			want: []string{`breaking subresources-changed v1 spec.versions[1].subresources.scale {"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"} → {"specReplicasPath":".spec.size","statusReplicasPath":".status.replicas"}`}},
		{name: "conversion webhook", new: func(c *crd) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"}}}
		}, want: []string{"breaking conversion-changed  spec.conversion.strategy None → Webhook"}},
		{name: "printer columns", new: func(c *crd) {
			c.Spec.Versions[1].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}}
		}, want: []string{`info printer-columns-changed v1 spec.versions[1].additionalPrinterColumns <none> → [{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}]`}},
		{name: "selectable field removed", old: func(c *crd) {
			c.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
		},
			want: []string{"breaking selectable-fields-changed v1 spec.versions[1].selectableFields .spec.color → <none>"}},
		{name: "selectable field added", new: func(c *crd) {
			c.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
		},
			want: []string{"info selectable-fields-changed v1 spec.versions[1].selectableFields <none> → .spec.color"}},
		// Each version is judged on its own: v1beta1 losing a field does not
		// hide that v1 only reordered its fields.
		{name: "selectable field removed in one version, reordered in another", old: func(c *crd) {
			c.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
			c.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}, {JSONPath: ".spec.size"}}
		}, new: func(c *crd) {
			c.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.size"}, {JSONPath: ".spec.color"}}
		},
			want: []string{"breaking selectable-fields-changed v1beta1 spec.versions[0].selectableFields .spec.color → <none>",
				`info selectable-fields-changed v1 spec.versions[1].selectableFields [".spec.color",".spec.size"] → [".spec.size",".spec.color"]`}},
		{name: "deprecated", new: func(c *crd) {
			c.Spec.Versions[0].Deprecated, c.Spec.Versions[0].DeprecationWarning = true, new("use v1")
		},
			want: []string{"info deprecation-changed v1beta1 spec.versions[0].deprecated false → true", "info deprecation-changed v1beta1 spec.versions[0].deprecationWarning <none> → use v1"}},
		{name: "annotations", new: func(c *crd) { c.Annotations = map[string]string{"controller-gen.kubebuilder.io/version": "v0.19.0"} },
			want: []string{"info metadata-changed  metadata.annotations[controller-gen.kubebuilder.io/version] <none> → v0.19.0"}},
		{name: "server-written metadata and status", new: func(c *crd) {
			c.ResourceVersion, c.Generation = "42", 3
			c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: "Established", Status: "True"}}
		}},
		{name: "unclassified CRD field", new: func(c *crd) { c.Spec.PreserveUnknownFields = true },
			want: []string{"breaking unclassified  spec.preserveUnknownFields <none> → true"}},
		{name: "schema removed from a version", new: func(c *crd) { c.Spec.Versions[0].Schema = nil },
			want: []string{`breaking unclassified v1beta1 spec.versions[0].schema {"openAPIV3Schema":{"type":"object"}} → <none>`}},
	}
	runCRDCases(t, baseCRD, tests)
}

func TestCompareRefusesDifferentCRDs(t *testing.T) {
	old, new := parseCRD(t, baseCRD), parseCRD(t, baseCRD)
	new.Name = "gadgets.example.com"
	if _, err := Compare(old, new); err == nil {
		t.Fatal("want an error comparing two different CRDs")
	}
}

func TestMatchCRDs(t *testing.T) {
	a, b, c := parseCRD(t, baseCRD), parseCRD(t, baseCRD), parseCRD(t, baseCRD)
	b.Name, c.Name = "b.example.com", "c.example.com"
	pairs := MatchCRDs([]*apiextensionsv1.CustomResourceDefinition{a, b}, []*apiextensionsv1.CustomResourceDefinition{c, a})
	var got []string
	for _, p := range pairs {
		changes, err := p.Compare()
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range changes {
			got = append(got, ch.String())
		}
	}
	want := []string{
		"b.example.com [breaking/crd-removed] metadata.name: b.example.com → <none>: applying the new set does not delete the CRD, but whatever prunes it deletes every stored object of its kind",
		"c.example.com [info/crd-added] metadata.name: <none> → c.example.com: a new CRD; nothing existing is affected",
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// Names are what Config and waivers refer to: each must be unique,
// documented and known to IsCheck, with the catch-all last.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		if seen[c.Name] || c.Doc == "" || !IsCheck(c.Name) {
			t.Errorf("check %q: duplicate, undocumented or unregistered", c.Name)
		}
		seen[c.Name] = true
	}
	if Checks()[len(Checks())-1].Name != Unclassified.Name {
		t.Error("the catch-all must come last")
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice must panic")
		}
	}()
	register(scopeChanged)
}
