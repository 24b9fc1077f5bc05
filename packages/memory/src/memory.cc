// After a thread sheds work (a replica hands some of its clusters to another), the memory that work used is free in V8's
// heap and in glibc's malloc arenas, but stays resident: V8 shrinks its heap only after a memory-reducing collection, and
// glibc returns free memory inside an arena only when malloc_trim asks it to. Node exposes neither, hence this addon.
// Context-aware (NODE_MODULE_INIT), so that worker threads can load it.
#include <node.h>
#include <v8.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// A full, memory-reducing garbage collection of the calling thread's isolate (synchronous).
void CollectGarbage(const v8::FunctionCallbackInfo<v8::Value>& info) {
  info.GetIsolate()->LowMemoryNotification();
}

// glibc's malloc_trim(0) over every arena of the process: true when memory was given back. False elsewhere (musl has
// no arenas to trim).
void TrimMalloc(const v8::FunctionCallbackInfo<v8::Value>& info) {
#if defined(__GLIBC__)
  info.GetReturnValue().Set(malloc_trim(0) == 1);
#else
  info.GetReturnValue().Set(false);
#endif
}

void Define(v8::Local<v8::Context> context, v8::Local<v8::Object> exports, const char* name, v8::FunctionCallback fn) {
  v8::Isolate* isolate = context->GetIsolate();
  v8::Local<v8::String> key = v8::String::NewFromUtf8(isolate, name).ToLocalChecked();
  v8::Local<v8::Function> f = v8::FunctionTemplate::New(isolate, fn)->GetFunction(context).ToLocalChecked();
  exports->Set(context, key, f).Check();
}

}  // namespace

NODE_MODULE_INIT(/* exports, module, context */) {
  Define(context, exports, "collectGarbage", CollectGarbage);
  Define(context, exports, "trimMalloc", TrimMalloc);
  v8::Isolate* isolate = context->GetIsolate();
#if defined(__GLIBC__)
  const bool glibc = true;
#else
  const bool glibc = false;
#endif
  exports->Set(context, v8::String::NewFromUtf8(isolate, "glibc").ToLocalChecked(), v8::Boolean::New(isolate, glibc)).Check();
}
