package testenv

import (
	"context"
	"errors"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// WriteCounter counts the writes a client makes to the API server. Give a controller
// the client it wraps to assert that a pass with nothing to do writes nothing.
type WriteCounter struct {
	n atomic.Int64
}

// Count returns the number of writes so far.
func (w *WriteCounter) Count() int64 { return w.n.Load() }

// Wrap returns c with every create, update, patch, apply and delete counted, of objects
// and of their subresources (status), whether the API server accepts it or not.
func (w *WriteCounter) Wrap(c client.Client) client.Client {
	return interceptor.NewClient(canWatch(c), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			w.n.Add(1)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			w.n.Add(1)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			w.n.Add(1)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			w.n.Add(1)
			return c.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			w.n.Add(1)
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			w.n.Add(1)
			return c.DeleteAllOf(ctx, obj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			w.n.Add(1)
			return c.SubResource(sub).Apply(ctx, obj, opts...)
		},
	})
}

// canWatch lets interceptor.NewClient, which wraps only clients that can watch, wrap any
// client: the manager's client cannot, nor can the clients tests build on it, and a
// reconciler never watches through its client.
func canWatch(c client.Client) client.WithWatch {
	if w, ok := c.(client.WithWatch); ok {
		return w
	}
	return noWatch{c}
}

type noWatch struct{ client.Client }

func (n noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("testenv: the wrapped client cannot watch")
}
