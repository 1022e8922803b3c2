package mock

import (
	"context"

	"github.com/zpulse/zpulse/internal/domain"
)

// Limiters is a fake domain.LimiterService: each method calls its Fn field.
type Limiters struct {
	AllowFn             func(context.Context, string, string) (domain.LimitResult, error)
	AllowInvoked        bool
	PeekFn              func(context.Context, string, string) (domain.LimitResult, error)
	PeekInvoked         bool
	PolicyFn            func(context.Context, string) (domain.LimitPolicy, error)
	PolicyInvoked       bool
	SetPolicyFn         func(context.Context, domain.LimitPolicy) (domain.LimitPolicy, error)
	SetPolicyInvoked    bool
	DeletePolicyFn      func(context.Context, string) error
	DeletePolicyInvoked bool
	PoliciesFn          func(context.Context) ([]domain.LimitPolicy, error)
	PoliciesInvoked     bool
	ViewFn              func(context.Context, string) (domain.LimiterView, error)
	ViewInvoked         bool
	ViewsFn             func(context.Context) ([]domain.LimiterView, error)
	ViewsInvoked        bool
}

var _ domain.LimiterService = (*Limiters)(nil)

func (s *Limiters) Allow(ctx context.Context, a1 string, a2 string) (r0 domain.LimitResult, err error) {
	s.AllowInvoked = true
	if s.AllowFn == nil {
		return
	}
	return s.AllowFn(ctx, a1, a2)
}

func (s *Limiters) Peek(ctx context.Context, a1 string, a2 string) (r0 domain.LimitResult, err error) {
	s.PeekInvoked = true
	if s.PeekFn == nil {
		return
	}
	return s.PeekFn(ctx, a1, a2)
}

func (s *Limiters) Policy(ctx context.Context, a1 string) (r0 domain.LimitPolicy, err error) {
	s.PolicyInvoked = true
	if s.PolicyFn == nil {
		return
	}
	return s.PolicyFn(ctx, a1)
}

func (s *Limiters) SetPolicy(ctx context.Context, a1 domain.LimitPolicy) (r0 domain.LimitPolicy, err error) {
	s.SetPolicyInvoked = true
	if s.SetPolicyFn == nil {
		return
	}
	return s.SetPolicyFn(ctx, a1)
}

func (s *Limiters) DeletePolicy(ctx context.Context, a1 string) error {
	s.DeletePolicyInvoked = true
	if s.DeletePolicyFn == nil {
		return nil
	}
	return s.DeletePolicyFn(ctx, a1)
}

func (s *Limiters) Policies(ctx context.Context) (r0 []domain.LimitPolicy, err error) {
	s.PoliciesInvoked = true
	if s.PoliciesFn == nil {
		return
	}
	return s.PoliciesFn(ctx)
}

func (s *Limiters) View(ctx context.Context, a1 string) (r0 domain.LimiterView, err error) {
	s.ViewInvoked = true
	if s.ViewFn == nil {
		return
	}
	return s.ViewFn(ctx, a1)
}

func (s *Limiters) Views(ctx context.Context) (r0 []domain.LimiterView, err error) {
	s.ViewsInvoked = true
	if s.ViewsFn == nil {
		return
	}
	return s.ViewsFn(ctx)
}
