// SafeHandles for the four libllm objects. The SWIG typemaps in
// bindings/swig/llm_csharp.swg pass them to the native wrapper directly, so
// the marshaller holds a reference during every call and a finalizer can
// never free an object that a call is still using.
using System;
using System.Runtime.InteropServices;

namespace Llm.Native
{
    internal abstract class LlmHandle : SafeHandle
    {
        // An object that needs another one alive until it is freed (a
        // context needs its model): that one stays referenced meanwhile.
        SafeHandle dependency;

        protected LlmHandle() : base(IntPtr.Zero, true) { }

        // A non-owning view of a raw pointer, used only to pass the pointer
        // to its *_free function from ReleaseHandle (when this handle is
        // already closed and cannot be marshalled any more).
        protected LlmHandle(IntPtr raw) : base(IntPtr.Zero, false) { SetHandle(raw); }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        internal void KeepAlive(SafeHandle other)
        {
            bool added = false;
            other.DangerousAddRef(ref added);
            if (added) dependency = other;
        }

        protected override bool ReleaseHandle()
        {
            Free(handle);
            if (dependency != null) dependency.DangerousRelease();
            return true;
        }

        protected abstract void Free(IntPtr raw);
    }

    internal sealed class ModelHandle : LlmHandle
    {
        public ModelHandle() { }
        ModelHandle(IntPtr raw) : base(raw) { }
        protected override void Free(IntPtr raw) { LlmNative.llm_model_free(new ModelHandle(raw)); }

        // A non-owning view of owner's pointer; the caller keeps owner alive.
        internal static ModelHandle Borrow(ModelHandle owner) { return new ModelHandle(owner.DangerousGetHandle()); }
    }

    internal sealed class ContextHandle : LlmHandle
    {
        public ContextHandle() { }
        ContextHandle(IntPtr raw) : base(raw) { }
        protected override void Free(IntPtr raw) { LlmNative.llm_context_free(new ContextHandle(raw)); }
    }

    internal sealed class SamplerHandle : LlmHandle
    {
        public SamplerHandle() { }
        SamplerHandle(IntPtr raw) : base(raw) { }
        protected override void Free(IntPtr raw) { LlmNative.llm_sampler_free(new SamplerHandle(raw)); }
    }

    internal sealed class DetokenizerHandle : LlmHandle
    {
        public DetokenizerHandle() { }
        DetokenizerHandle(IntPtr raw) : base(raw) { }
        protected override void Free(IntPtr raw) { LlmNative.llm_detokenizer_free(new DetokenizerHandle(raw)); }
    }
}
