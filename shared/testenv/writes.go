package testenv

import (
	"context"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WriteCounter counts the writes a client makes to the API server. Give a controller
// the client it wraps to assert that a pass with nothing to do writes nothing.
type WriteCounter struct {
	n atomic.Int64
}

// Count returns the number of writes so far.
func (w *WriteCounter) Count() int64 { return w.n.Load() }

// Wrap returns c with every create, update, patch, apply and delete counted, of objects
// and of their subresources (status).
func (w *WriteCounter) Wrap(c client.Client) client.Client {
	return &countingClient{Client: c, n: &w.n}
}

type countingClient struct {
	client.Client
	n *atomic.Int64
}

func (c *countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.n.Add(1)
	return c.Client.Create(ctx, obj, opts...)
}

func (c *countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.n.Add(1)
	return c.Client.Update(ctx, obj, opts...)
}

func (c *countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.n.Add(1)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c *countingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c.n.Add(1)
	return c.Client.Apply(ctx, obj, opts...)
}

func (c *countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.n.Add(1)
	return c.Client.Delete(ctx, obj, opts...)
}

func (c *countingClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.n.Add(1)
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

func (c *countingClient) Status() client.SubResourceWriter {
	return &countingSubResource{SubResourceClient: c.Client.SubResource("status"), n: c.n}
}

func (c *countingClient) SubResource(name string) client.SubResourceClient {
	return &countingSubResource{SubResourceClient: c.Client.SubResource(name), n: c.n}
}

type countingSubResource struct {
	client.SubResourceClient
	n *atomic.Int64
}

func (s *countingSubResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	s.n.Add(1)
	return s.SubResourceClient.Create(ctx, obj, sub, opts...)
}

func (s *countingSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.n.Add(1)
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s *countingSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.n.Add(1)
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}

func (s *countingSubResource) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	s.n.Add(1)
	return s.SubResourceClient.Apply(ctx, obj, opts...)
}
