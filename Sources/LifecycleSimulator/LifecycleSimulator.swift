// LifecycleSimulator
