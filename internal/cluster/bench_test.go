package cluster

import (
	"fmt"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// BenchmarkRebuild is the engine rebuild that follows a change of one of
// 1, 100 and 1,000 stored GuardPolicies on the example kind (the example
// policy under as many names), as the cluster source does after every
// change: the changed one validated as the API server would, all compiled.
func BenchmarkRebuild(b *testing.B) {
	registry, err := schema.RegistryFromFiles(b.Context(), mysqlexample.Path("crd.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	docs, err := manifest.ReadFile(mysqlexample.Path("policy.yaml"))
	if err != nil || len(docs) != 1 || docs[0].Err != nil {
		b.Fatalf("%v %v", err, docs)
	}
	for _, n := range []int{1, 100, 1000} {
		objs := make([]*unstructured.Unstructured, n)
		for i := range objs {
			objs[i] = docs[0].Object.DeepCopy()
			objs[i].SetName(fmt.Sprintf("mysql-safety-%04d", i))
			objs[i].SetUID(types.UID(fmt.Sprintf("uid-%04d", i)))
			objs[i].SetGeneration(1)
			objs[i].SetResourceVersion("1")
		}
		b.Run(fmt.Sprintf("policies=%d", n), func(b *testing.B) {
			var book policyBook
			if _, _, _, err := book.build(b.Context(), registry, objs); err != nil {
				b.Fatal(err)
			}
			version := 1
			b.ReportAllocs()
			for b.Loop() {
				version++
				objs[0].SetResourceVersion(strconv.Itoa(version))
				_, stats, problems, err := book.build(b.Context(), registry, objs)
				if err != nil || len(problems) > 0 || stats.Policies != n {
					b.Fatalf("%v %v %+v", err, problems, stats)
				}
			}
		})
	}
}
