package conflict

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/mholt/acmez/v3"
	"github.com/mholt/acmez/v3/acme"
)

// errNoAccount is what the server answers when it no longer knows the
// account the client signs with.
var errNoAccount = errors.New("account does not exist")


type session struct {
	hc      *http.Client
	base    string
	account string
}

// order retries its own request on 5xx (the inner layer).
func (s *session) order(ctx context.Context) error {
	return backoff.Retry(func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/order/"+s.account, nil)
		if err != nil {
			return backoff.Permanent(err)
		}
		resp, err := s.hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound:
			return backoff.Permanent(errNoAccount)
		case resp.StatusCode >= 500:
			return errors.New(resp.Status)
		}
		return nil
	}, backoff.WithMaxRetries(backoff.WithContext(backoff.NewExponentialBackOff(), ctx), 3))
}

func newSession(ctx context.Context, hc *http.Client, base string) (*session, error) {
	return &session{hc: hc, base: base, account: "new"}, nil
}

// OrderAnyRepair goes round on every failure, repairing only for one:
// the 5xx comes round unrepaired. Reported.
func OrderAnyRepair(ctx context.Context, hc *http.Client, base string) error {
	s, err := newSession(ctx, hc, base)
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at conflict/repair.go:\d+ wraps backoff.Retry \(4 attempts\) at conflict/repair.go:\d+ \(through conflict.\(\*session\).order\): up to 12 requests per call`
		err = s.order(ctx)
		if err == nil {
			return nil
		}
		if errors.Is(err, errNoAccount) {
			s, _ = newSession(ctx, hc, base)
			continue
		}
		time.Sleep(time.Second)
	}
	return err
}

// An ACME client (acmez) retries its order and its signed requests itself.
type acmeSession struct {
	client  *acmez.Client
	account acme.Account
}

type issuer struct{ ca string }

func (is *issuer) newSession(ctx context.Context) (*acmeSession, error) {
	s := &acmeSession{client: &acmez.Client{Client: &acme.Client{Directory: is.ca}}}
	acct, err := s.client.NewAccount(ctx, acme.Account{TermsOfServiceAgreed: true})
	if err != nil {
		return nil, err
	}
	s.account = acct
	return s, nil
}

func (is *issuer) forgetAccount(ctx context.Context) error { return nil }

// Issue goes round only when the CA no longer knows the account, after
// making a new one; every other failure, those the client's own layers
// gave up on among them, is handed back. A repair, not a retry of the
// same request: quiet.
func (is *issuer) Issue(ctx context.Context, params acmez.OrderParameters) ([]acme.Certificate, error) {
	s, err := is.newSession(ctx)
	if err != nil {
		return nil, err
	}
	params.Account = s.account
	var certs []acme.Certificate
	for range 2 {
		certs, err = s.client.ObtainCertificate(ctx, params)
		if err != nil {
			var prob acme.Problem
			if errors.As(err, &prob) && prob.Type == acme.ProblemTypeAccountDoesNotExist {
				err := is.forgetAccount(ctx)
				if err != nil {
					return nil, err
				}
				s, err = is.newSession(ctx)
				if err != nil {
					return nil, err
				}
				params.Account = s.account
				continue
			}
			return nil, err
		}
		break
	}
	return certs, nil
}

// IssueAny makes a new session after every failure and goes round: what
// the client's layers gave up on comes round too. The session's error
// reuses err, and its failure leaves; the order's failure is what goes
// round.
func (is *issuer) IssueAny(ctx context.Context, params acmez.OrderParameters) ([]acme.Certificate, error) {
	s, err := is.newSession(ctx)
	if err != nil {
		return nil, err
	}
	params.Account = s.account
	var certs []acme.Certificate
	for range 2 { // want `retry loop \(2 attempts\) at conflict/repair.go:\d+ wraps retry loop \(3 attempts\) at v3@v3.1.6/client.go:124 \(through acmez.\(\*Client\).ObtainCertificate\)`
		certs, err = s.client.ObtainCertificate(ctx, params)
		if err != nil {
			s, err = is.newSession(ctx)
			if err != nil {
				return nil, err
			}
			params.Account = s.account
			continue
		}
		break
	}
	return certs, nil
}
