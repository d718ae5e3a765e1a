package selfsigned

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
)

// Manager issues, rotates and serves the webhook's certificate and injects
// its CA bundle (see the package documentation). New makes one that serves
// at once; Start keeps it current. It is a controller-runtime Runnable.
type Manager struct {
	cfg    Config
	client kubernetes.Interface
	log    logr.Logger

	serving atomic.Pointer[tls.Certificate]
	mu      sync.Mutex
	// callbacks are called with every certificate served.
	callbacks []func(tls.Certificate)
	// changed wakes Start when a watched object changes.
	changed chan struct{}
}

// New reads the Secret, or creates it, and injects its bundle: when it
// returns, GetCertificate serves. It fails when the Secret can be neither
// read nor created; an injection that fails is retried by Start.
func New(ctx context.Context, client kubernetes.Interface, cfg Config, log logr.Logger) (*Manager, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Manager{cfg: cfg, client: client, log: log, changed: make(chan struct{}, 1)}
	if _, err := m.reconcile(ctx); err != nil && m.serving.Load() == nil {
		return nil, err
	} else if err != nil {
		log.Error(err, "Injecting the CA bundle failed; retrying")
	}
	return m, nil
}

// GetCertificate serves the certificate the Secret holds, for
// tls.Config.GetCertificate: a renewed one on the next handshake.
func (m *Manager) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := m.serving.Load(); c != nil {
		return c, nil
	}
	return nil, errors.New("no serving certificate")
}

// RegisterCallback calls f with the certificate served now, and with every
// one served after it.
func (m *Manager) RegisterCallback(f func(tls.Certificate)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.callbacks = append(m.callbacks, f)
	if c := m.serving.Load(); c != nil {
		f(*c)
	}
}

// Start keeps the certificate and the bundles current until ctx is done:
// on every change of the Secret or the configurations, when a renewal or
// an overlap is due, and at least every Config.Resync.
func (m *Manager) Start(ctx context.Context) error {
	factories, err := m.watch(ctx)
	if err != nil {
		return err
	}
	defer func() {
		for _, f := range factories {
			f.Shutdown()
		}
	}()
	const minRetry, maxRetry = time.Second, time.Minute
	retryAfter := minRetry
	for {
		wait := m.cfg.Resync
		if next, err := m.reconcile(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			m.log.Error(err, "Reconciling the serving certificate failed", "retryAfter", retryAfter)
			wait, retryAfter = min(wait, retryAfter), min(2*retryAfter, maxRetry)
		} else {
			retryAfter = minRetry
			wait = min(wait, max(next.Sub(m.cfg.Clock.Now()), 0))
		}
		timer := m.cfg.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-m.changed:
		case <-timer.C():
		}
		timer.Stop()
	}
}

// NeedLeaderElection is false: every replica serves, so every replica
// keeps its certificate current.
func (m *Manager) NeedLeaderElection() bool { return false }

// watch starts informers on the Secret and the configurations, each on its
// one object by name (so the RBAC can be limited to those names), which
// wake Start on every change.
func (m *Manager) watch(ctx context.Context) ([]informers.SharedInformerFactory, error) {
	wake := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { m.wake() },
		UpdateFunc: func(any, any) { m.wake() },
		DeleteFunc: func(any) { m.wake() },
	}
	byName := func(name string) informers.SharedInformerOption {
		return informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		})
	}
	var factories []informers.SharedInformerFactory
	add := func(f informers.SharedInformerFactory, informer toolscache.SharedIndexInformer) error {
		factories = append(factories, f)
		_, err := informer.AddEventHandler(wake)
		return err
	}
	f := informers.NewSharedInformerFactoryWithOptions(m.client, 0, informers.WithNamespace(m.cfg.Namespace), byName(m.cfg.Name))
	if err := add(f, f.Core().V1().Secrets().Informer()); err != nil {
		return nil, err
	}
	for _, name := range m.cfg.ValidatingWebhookConfigurations {
		f := informers.NewSharedInformerFactoryWithOptions(m.client, 0, byName(name))
		if err := add(f, f.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer()); err != nil {
			return nil, err
		}
	}
	for _, name := range m.cfg.MutatingWebhookConfigurations {
		f := informers.NewSharedInformerFactoryWithOptions(m.client, 0, byName(name))
		if err := add(f, f.Admissionregistration().V1().MutatingWebhookConfigurations().Informer()); err != nil {
			return nil, err
		}
	}
	for _, f := range factories {
		f.Start(ctx.Done())
	}
	return factories, nil
}

// wake makes Start reconcile now; a wake already pending covers this one.
func (m *Manager) wake() {
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

// reconcile brings the Secret, the served certificate and the bundles up
// to date and returns when it next needs to run.
func (m *Manager) reconcile(ctx context.Context) (time.Time, error) {
	var s *state
	var injectErr error
	// A Conflict means another replica wrote the Secret since it was
	// read: start over from theirs.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var secret *corev1.Secret
		var did []string
		var err error
		if secret, s, did, err = m.readOrCreate(ctx); err != nil {
			return err
		}
		// The configurations must trust the bundle before a new CA may
		// sign: inject first, then advance.
		injectErr = m.inject(ctx, s.bundle())
		advanced, err := m.cfg.advance(s, m.cfg.Clock.Now(), injectErr == nil)
		if did = append(did, advanced...); err != nil || len(did) == 0 {
			return err
		}
		bundle := secret.Data[KeyBundle]
		if err := s.encode(secret); err != nil {
			return err
		}
		if _, err := m.client.CoreV1().Secrets(m.cfg.Namespace).Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
			return err
		}
		m.log.Info("Updated the serving certificate Secret", "secret", m.secretName(), "changes", strings.Join(did, "; "))
		if !bytes.Equal(bundle, secret.Data[KeyBundle]) {
			injectErr = m.inject(ctx, secret.Data[KeyBundle])
		}
		return nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("secret %s: %w", m.secretName(), err)
	}
	if err := m.serve(s.serving); err != nil {
		return time.Time{}, err
	}
	return m.cfg.nextEvent(s), injectErr
}

// readOrCreate reads the Secret, or creates it with a fresh CA and serving
// certificate; when another replica created it first, theirs is read. A
// Secret without a usable signing CA, or whose CA has expired (too late
// for an overlap), is started over: did says so, and the caller writes it.
func (m *Manager) readOrCreate(ctx context.Context) (secret *corev1.Secret, s *state, did []string, err error) {
	secrets := m.client.CoreV1().Secrets(m.cfg.Namespace)
	secret, err = secrets.Get(ctx, m.cfg.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if s, err = m.cfg.fresh(m.cfg.Clock.Now()); err != nil {
			return nil, nil, nil, err
		}
		if secret, err = newSecret(m.cfg.Namespace, m.cfg.Name, s); err != nil {
			return nil, nil, nil, err
		}
		// Not err: the read of theirs below must set the err checked after.
		created, createErr := secrets.Create(ctx, secret, metav1.CreateOptions{})
		if createErr == nil {
			m.log.Info("Created the serving certificate Secret", "secret", m.secretName())
			return created, s, nil, nil
		}
		if !apierrors.IsAlreadyExists(createErr) {
			return nil, nil, nil, createErr
		}
		secret, err = secrets.Get(ctx, m.cfg.Name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, nil, nil, err
	}
	now := m.cfg.Clock.Now()
	s, err = decode(secret)
	if err == nil && !now.Before(s.signing.cert.NotAfter) {
		err = fmt.Errorf("%s: expired at %s", keySigningCert, s.signing.cert.NotAfter.UTC().Format(time.RFC3339))
	}
	if err == nil {
		return secret, s, nil, nil
	}
	m.log.Error(err, "The serving certificate Secret holds no usable CA; starting over", "secret", m.secretName())
	if s, err = m.cfg.fresh(now); err != nil {
		return nil, nil, nil, err
	}
	return secret, s, []string{"started over with a new CA"}, nil
}

func (m *Manager) secretName() string { return m.cfg.Namespace + "/" + m.cfg.Name }

// serve makes serving the certificate GetCertificate returns, and tells
// the callbacks, when it is not already.
func (m *Manager) serve(serving *keyPair) error {
	if serving == nil {
		return errors.New("no serving certificate")
	}
	if c := m.serving.Load(); c != nil && bytes.Equal(c.Certificate[0], serving.cert.Raw) {
		return nil
	}
	cert, err := tls.X509KeyPair(serving.certPEM, serving.keyPEM)
	if err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.serving.Store(&cert)
	m.log.Info("Serving certificate", "serial", serving.cert.SerialNumber.Text(16), "issuer", serving.cert.Issuer.CommonName, "notAfter", serving.cert.NotAfter.UTC())
	for _, f := range m.callbacks {
		f(cert)
	}
	return nil
}
