package hang

import "testing"

func TestAPI(t *testing.T) {}

func TestScaleUp(t *testing.T) {
	t.Run("three", func(t *testing.T) {
		if Wait(make(chan int)) != 3 {
			t.Error("the ImoocPod should have 3 pods")
		}
	})
}
