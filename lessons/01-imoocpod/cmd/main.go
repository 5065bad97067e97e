// Command manager runs the ImoocPod controller against the current kube context.
package main

import (
	"flag"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/01-imoocpod/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/lessons/01-imoocpod/internal/controller"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

func main() {
	opts := bootstrap.Options{Name: "imoocpod"}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(appsv1.AddToScheme(scheme))

	err := bootstrap.Run(opts, scheme, func(mgr ctrl.Manager) error {
		return (&controller.ImoocPodReconciler{
			Client: mgr.GetClient(),
			Scheme: mgr.GetScheme(),
		}).SetupWithManager(mgr)
	})
	if err != nil {
		os.Exit(1)
	}
}
