package selfsigned

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// configurations is the typed client of one kind of webhook configuration.
type configurations[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// inject sets the caBundle of every webhook in the configurations to
// bundle. It returns nil once all that exist hold it.
func (m *Manager) inject(ctx context.Context, bundle []byte) error {
	admission := m.client.AdmissionregistrationV1()
	var errs []error
	for _, name := range m.cfg.ValidatingWebhookConfigurations {
		errs = append(errs, injectInto(ctx, m.log, admission.ValidatingWebhookConfigurations(), "ValidatingWebhookConfiguration", name, bundle, validatingBundles))
	}
	for _, name := range m.cfg.MutatingWebhookConfigurations {
		errs = append(errs, injectInto(ctx, m.log, admission.MutatingWebhookConfigurations(), "MutatingWebhookConfiguration", name, bundle, mutatingBundles))
	}
	return errors.Join(errs...)
}

// injectInto sets every caBundle of the configuration name to bundle,
// with the resourceVersion it read: another writer in between (a replica,
// a helm upgrade) makes it read again.
func injectInto[T any](ctx context.Context, log logr.Logger, client configurations[T], kind, name string, bundle []byte, bundles func(T) []*[]byte) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			// Not created yet (or not rendered): its creation is watched.
			return nil
		}
		if err != nil {
			return err
		}
		changed := 0
		for _, b := range bundles(c) {
			if !bytes.Equal(*b, bundle) {
				*b = bundle
				changed++
			}
		}
		if changed == 0 {
			return nil
		}
		if _, err := client.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
			return err
		}
		log.Info("Injected the CA bundle", "kind", kind, "name", name, "webhooks", changed)
		return nil
	})
	if err != nil {
		return fmt.Errorf("injecting the CA bundle into %s %s: %w", kind, name, err)
	}
	return nil
}

func validatingBundles(c *admissionregistrationv1.ValidatingWebhookConfiguration) []*[]byte {
	var b []*[]byte
	for i := range c.Webhooks {
		b = append(b, &c.Webhooks[i].ClientConfig.CABundle)
	}
	return b
}

func mutatingBundles(c *admissionregistrationv1.MutatingWebhookConfiguration) []*[]byte {
	var b []*[]byte
	for i := range c.Webhooks {
		b = append(b, &c.Webhooks[i].ClientConfig.CABundle)
	}
	return b
}
