package diff

import (
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

var subresourcesChanged = Check{
	Name:   "subresources-changed",
	Doc:    "the status or scale subresource was removed, added or its paths changed",
	Claims: []string{"spec.versions.*.subresources"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, v := range p.CommonVersions() {
			path := v.Path.Child("subresources")
			var oldStatus, newStatus bool
			var oldScale, newScale *apiextensionsv1.CustomResourceSubresourceScale
			if s := v.Old.Subresources; s != nil {
				oldStatus, oldScale = s.Status != nil, s.Scale
			}
			if s := v.New.Subresources; s != nil {
				newStatus, newScale = s.Status != nil, s.Scale
			}
			switch {
			case oldStatus && !newStatus:
				out = append(out, Change{Impact: Breaking, Version: v.Name, Path: path.Child("status").String(), Old: "{}",
					Message: "controllers writing /status get 404, and status becomes writable through the main resource"})
			case !oldStatus && newStatus:
				out = append(out, Change{Impact: Warning, Version: v.Name, Path: path.Child("status").String(), New: "{}",
					Message: "status is now ignored on writes to the main resource: controllers must write it through /status"})
			}
			switch {
			case oldScale != nil && newScale == nil:
				out = append(out, Change{Impact: Breaking, Version: v.Name, Path: path.Child("scale").String(), Old: render(oldScale, true),
					Message: "kubectl scale and HorizontalPodAutoscalers targeting this kind stop working"})
			case oldScale == nil && newScale != nil:
				out = append(out, Change{Impact: Info, Version: v.Name, Path: path.Child("scale").String(), New: render(newScale, true),
					Message: "the kind can now be scaled"})
			case oldScale != nil && !reflect.DeepEqual(oldScale, newScale):
				out = append(out, Change{Impact: Breaking, Version: v.Name, Path: path.Child("scale").String(), Old: render(oldScale, true), New: render(newScale, true),
					Message: "autoscalers and kubectl scale read and write different fields than before"})
			}
		}
		return out
	},
}
