package localcluster

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WaitEstablished waits, for at most a minute, until every CRD named is
// established: its kinds are served. A failed read is polled through, as
// the API server may not know a CRD it was just sent yet.
func WaitEstablished(ctx context.Context, c client.Client, names ...string) error {
	for _, name := range names {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return false, nil
			}
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s not established: %w", name, err)
		}
	}
	return nil
}
