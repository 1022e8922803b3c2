package mock

import (
	"context"
	"sync/atomic"

	"github.com/zpulse/zpulse/internal/domain"
)

// Limiters is a fake domain.LimiterService: each method calls its Fn field.
type Limiters struct {
	AllowFn             func(context.Context, string, string) (domain.LimitResult, error)
	AllowInvoked        atomic.Bool
	PeekFn              func(context.Context, string, string) (domain.LimitResult, error)
	PeekInvoked         atomic.Bool
	PolicyFn            func(context.Context, string) (domain.LimitPolicy, error)
	ClientsFn           func(context.Context, string, string, int) (domain.ClientPage, error)
	ClientsInvoked      atomic.Bool
	PolicyInvoked       atomic.Bool
	SetPolicyFn         func(context.Context, domain.LimitPolicy) (domain.LimitPolicy, error)
	SetPolicyInvoked    atomic.Bool
	DeletePolicyFn      func(context.Context, string) error
	DeletePolicyInvoked atomic.Bool
	PoliciesFn          func(context.Context) ([]domain.LimitPolicy, error)
	PoliciesInvoked     atomic.Bool
	ViewFn              func(context.Context, string) (domain.LimiterView, error)
	ViewInvoked         atomic.Bool
	ViewsFn             func(context.Context) ([]domain.LimiterView, error)
	ViewsInvoked        atomic.Bool
}

var _ domain.LimiterService = (*Limiters)(nil)

func (s *Limiters) Allow(ctx context.Context, a1 string, a2 string) (r0 domain.LimitResult, err error) {
	s.AllowInvoked.Store(true)
	if s.AllowFn == nil {
		return
	}
	return s.AllowFn(ctx, a1, a2)
}

func (s *Limiters) Peek(ctx context.Context, a1 string, a2 string) (r0 domain.LimitResult, err error) {
	s.PeekInvoked.Store(true)
	if s.PeekFn == nil {
		return
	}
	return s.PeekFn(ctx, a1, a2)
}

func (s *Limiters) Policy(ctx context.Context, a1 string) (r0 domain.LimitPolicy, err error) {
	s.PolicyInvoked.Store(true)
	if s.PolicyFn == nil {
		return
	}
	return s.PolicyFn(ctx, a1)
}

func (s *Limiters) SetPolicy(ctx context.Context, a1 domain.LimitPolicy) (r0 domain.LimitPolicy, err error) {
	s.SetPolicyInvoked.Store(true)
	if s.SetPolicyFn == nil {
		return
	}
	return s.SetPolicyFn(ctx, a1)
}

func (s *Limiters) DeletePolicy(ctx context.Context, a1 string) error {
	s.DeletePolicyInvoked.Store(true)
	if s.DeletePolicyFn == nil {
		return nil
	}
	return s.DeletePolicyFn(ctx, a1)
}

func (s *Limiters) Policies(ctx context.Context) (r0 []domain.LimitPolicy, err error) {
	s.PoliciesInvoked.Store(true)
	if s.PoliciesFn == nil {
		return
	}
	return s.PoliciesFn(ctx)
}

func (s *Limiters) View(ctx context.Context, a1 string) (r0 domain.LimiterView, err error) {
	s.ViewInvoked.Store(true)
	if s.ViewFn == nil {
		return
	}
	return s.ViewFn(ctx, a1)
}

func (s *Limiters) Views(ctx context.Context) (r0 []domain.LimiterView, err error) {
	s.ViewsInvoked.Store(true)
	if s.ViewsFn == nil {
		return
	}
	return s.ViewsFn(ctx)
}

func (s *Limiters) Clients(ctx context.Context, a1 string, a2 string, a3 int) (r0 domain.ClientPage, err error) {
	s.ClientsInvoked.Store(true)
	if s.ClientsFn == nil {
		return
	}
	return s.ClientsFn(ctx, a1, a2, a3)
}
