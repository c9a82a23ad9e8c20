#include "core/vision/checkpoint_pickle_impl.h"

#include <cstring>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/util/error.h"

namespace skytrace::vision {
namespace {

using Kind = PickleValue::Kind;

PickleValuePtr make(Kind kind) {
  auto v = std::make_shared<PickleValue>();
  v->kind = kind;
  return v;
}

// torch.<Type>Storage -> element type.
bool storageDtype(const std::string& global, at::ScalarType* dtype) {
  static const std::map<std::string, at::ScalarType> types = {
      {"torch.FloatStorage", at::kFloat},   {"torch.DoubleStorage", at::kDouble},
      {"torch.HalfStorage", at::kHalf},     {"torch.BFloat16Storage", at::kBFloat16},
      {"torch.LongStorage", at::kLong},     {"torch.IntStorage", at::kInt},
      {"torch.ShortStorage", at::kShort},   {"torch.CharStorage", at::kChar},
      {"torch.ByteStorage", at::kByte},     {"torch.BoolStorage", at::kBool},
      {"torch.ComplexFloatStorage", at::kComplexFloat},
      {"torch.ComplexDoubleStorage", at::kComplexDouble},
  };
  const auto it = types.find(global);
  if (it == types.end()) return false;
  *dtype = it->second;
  return true;
}

class Unpickler {
 public:
  Unpickler(std::string_view program, const StorageLoader& loader, const std::string& source)
      : p_(program), load_storage_(loader), source_(source) {}

  PickleValuePtr run();

 private:
  [[noreturn]] void fail(const std::string& why) const {
    std::ostringstream text;
    text << source_ << ": cannot read the checkpoint's pickle (data.pkl) at byte " << op_at_
         << ": " << why;
    throw ModelError(text.str());
  }

  void need(size_t n) const {
    if (pos_ + n > p_.size()) fail("program truncated");
  }
  uint8_t u8() {
    need(1);
    return static_cast<uint8_t>(p_[pos_++]);
  }
  uint64_t uLE(size_t n) {
    need(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(p_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }
  std::string bytes(uint64_t n) {
    need(n);
    std::string s(p_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::string line() {
    const size_t end = p_.find('\n', pos_);
    if (end == std::string_view::npos) fail("unterminated text argument");
    std::string s(p_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }

  PickleValuePtr pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
      fail("stack underflow");
    PickleValuePtr v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  PickleValuePtr& top() {
    if (stack_.empty()) fail("stack underflow");
    return stack_.back();
  }
  std::vector<PickleValuePtr> popToMark() {
    if (marks_.empty()) fail("no MARK on the stack");
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<PickleValuePtr> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark),
                                      stack_.end());
    stack_.resize(mark);
    return items;
  }
  PickleValuePtr memoGet(uint64_t index) {
    const auto it = memo_.find(index);
    if (it == memo_.end()) fail("memo entry " + std::to_string(index) + " was never stored");
    return it->second;
  }
  PickleValuePtr tuple(std::vector<PickleValuePtr> items) {
    auto v = make(Kind::Tuple);
    v->items = std::move(items);
    return v;
  }
  PickleValuePtr global(const std::string& module, const std::string& name) {
    auto v = make(Kind::Global);
    v->text = module + "." + name;
    return v;
  }
  void setItem(const PickleValuePtr& dict, PickleValuePtr key, PickleValuePtr value) {
    if (dict->kind == Kind::Object) return;  // unknown mapping type: contents unused
    if (dict->kind != Kind::Dict) fail("SETITEM on a " + dict->describe());
    dict->entries.emplace_back(std::move(key), std::move(value));
  }
  void append(const PickleValuePtr& list, PickleValuePtr value) {
    if (list->kind == Kind::Object) return;
    if (list->kind != Kind::List) fail("APPEND on a " + list->describe());
    list->items.push_back(std::move(value));
  }

  PickleValuePtr persistentLoad(const PickleValuePtr& pid);
  PickleValuePtr reduce(const PickleValuePtr& callable, const PickleValuePtr& args);
  PickleValuePtr rebuildTensor(const std::vector<PickleValuePtr>& args);
  int64_t asInt(const PickleValuePtr& v, const char* what) {
    if (v->kind == Kind::Int) return v->integer;
    if (v->kind == Kind::Bool) return v->boolean ? 1 : 0;
    fail(std::string(what) + " is a " + v->describe() + ", expected an integer");
  }
  std::vector<int64_t> asInts(const PickleValuePtr& v, const char* what) {
    if (v->kind != Kind::Tuple && v->kind != Kind::List)
      fail(std::string(what) + " is a " + v->describe() + ", expected a tuple");
    std::vector<int64_t> out;
    for (const auto& item : v->items) out.push_back(asInt(item, what));
    return out;
  }

  std::string_view p_;
  const StorageLoader& load_storage_;
  const std::string& source_;
  size_t pos_ = 0;
  size_t op_at_ = 0;
  std::vector<PickleValuePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleValuePtr> memo_;
  std::map<std::string, at::Tensor> storages_;
};

PickleValuePtr Unpickler::persistentLoad(const PickleValuePtr& pid) {
  // ('storage', <storage type>, key, location, numel)
  if (pid->kind != Kind::Tuple || pid->items.size() < 5 ||
      pid->items[0]->kind != Kind::String || pid->items[0]->text != "storage")
    fail("unsupported persistent id (expected a ('storage', type, key, location, numel) tuple)");
  const auto& type = pid->items[1];
  const auto& key = pid->items[2];
  at::ScalarType dtype{};
  if (type->kind != Kind::Global || !storageDtype(type->text, &dtype))
    fail("unsupported storage type " + (type->kind == Kind::Global ? type->text : type->describe()));
  if (key->kind != Kind::String) fail("storage key is a " + key->describe());
  const int64_t numel = asInt(pid->items[4], "storage size");
  auto it = storages_.find(key->text);
  if (it == storages_.end()) it = storages_.emplace(key->text, load_storage_(key->text, dtype, numel)).first;
  const at::Tensor& storage = it->second;
  if (storage.scalar_type() != dtype || storage.numel() != numel)
    fail("storage '" + key->text + "' is referenced with two different types or sizes");
  auto v = make(Kind::Tensor);
  v->tensor = storage;
  return v;
}

PickleValuePtr Unpickler::rebuildTensor(const std::vector<PickleValuePtr>& args) {
  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks[, meta])
  if (args.size() < 4) fail("tensor rebuild with " + std::to_string(args.size()) + " arguments");
  if (args[0]->kind != Kind::Tensor) fail("tensor rebuilt from a " + args[0]->describe());
  const at::Tensor& storage = args[0]->tensor;
  const int64_t offset = asInt(args[1], "storage offset");
  const std::vector<int64_t> sizes = asInts(args[2], "tensor size");
  const std::vector<int64_t> strides = asInts(args[3], "tensor stride");
  if (sizes.size() != strides.size()) fail("tensor size and stride have different ranks");
  int64_t last = offset;  // highest element index touched
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0) fail("negative tensor size or stride");
    if (sizes[d] == 0) empty = true;
    else last += (sizes[d] - 1) * strides[d];
  }
  if (offset < 0 || (!empty && last >= storage.numel()))
    fail("tensor of size " + std::to_string(sizes.size()) + "-D exceeds its storage of " +
         std::to_string(storage.numel()) + " elements");
  auto v = make(Kind::Tensor);
  v->tensor = storage.as_strided(sizes, strides, offset);  // shares the storage
  return v;
}

PickleValuePtr Unpickler::reduce(const PickleValuePtr& callable, const PickleValuePtr& args) {
  if (args->kind != Kind::Tuple) fail("REDUCE arguments are a " + args->describe());
  const std::string name = callable->kind == Kind::Global ? callable->text : std::string();
  if (name == "collections.OrderedDict" || name == "builtins.dict") {
    auto dict = make(Kind::Dict);
    if (!args->items.empty() && args->items[0]->kind == Kind::List) {
      for (const auto& pair : args->items[0]->items)
        if (pair->kind == Kind::Tuple && pair->items.size() == 2)
          dict->entries.emplace_back(pair->items[0], pair->items[1]);
    }
    return dict;
  }
  if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor")
    return rebuildTensor(args->items);
  if (name == "torch._utils._rebuild_parameter" ||
      name == "torch._utils._rebuild_parameter_with_state") {
    if (args->items.empty() || args->items[0]->kind != Kind::Tensor)
      fail("parameter rebuilt from something that is not a tensor");
    return args->items[0];
  }
  // Any other callable (argparse.Namespace, torch.device, ...) is kept opaque.
  auto object = make(Kind::Object);
  object->text = name.empty() ? callable->describe() : name;
  object->items = args->items;
  return object;
}

PickleValuePtr Unpickler::run() {
  while (true) {
    op_at_ = pos_;
    const uint8_t op = u8();
    switch (op) {
      case 0x80: u8(); break;                  // PROTO
      case 0x95: uLE(8); break;                // FRAME
      case '.':                                // STOP
        if (stack_.size() != 1) fail("STOP with " + std::to_string(stack_.size()) + " values");
        return stack_.back();
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case '0': pop(); break;                            // POP
      case '1': popToMark(); break;                      // POP_MARK
      case '2': stack_.push_back(top()); break;          // DUP
      case 'N': stack_.push_back(make(Kind::None)); break;
      case 0x88:
      case 0x89: {  // NEWTRUE / NEWFALSE
        auto v = make(Kind::Bool);
        v->boolean = op == 0x88;
        stack_.push_back(v);
        break;
      }
      case 'J':  // BININT
      case 'K':  // BININT1
      case 'M': {  // BININT2
        auto v = make(Kind::Int);
        if (op == 'J') v->integer = static_cast<int32_t>(static_cast<uint32_t>(uLE(4)));
        else v->integer = static_cast<int64_t>(uLE(op == 'K' ? 1 : 2));
        stack_.push_back(v);
        break;
      }
      case 0x8a: {  // LONG1: little-endian two's complement of n bytes
        const uint8_t n = u8();
        if (n > 8) fail("integer wider than 64 bits");
        uint64_t raw = uLE(n);
        if (n > 0 && n < 8 && (raw >> (8 * n - 1)) & 1u) raw |= ~0ULL << (8 * n);
        auto v = make(Kind::Int);
        v->integer = static_cast<int64_t>(raw);
        stack_.push_back(v);
        break;
      }
      case 'G': {  // BINFLOAT: big-endian IEEE double
        need(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(p_[pos_ + i]);
        pos_ += 8;
        auto v = make(Kind::Float);
        std::memcpy(&v->real, &bits, sizeof bits);
        stack_.push_back(v);
        break;
      }
      case 'X':      // BINUNICODE
      case 0x8c:     // SHORT_BINUNICODE
      case 0x8d:     // BINUNICODE8
      case 'T':      // BINSTRING
      case 'U':      // SHORT_BINSTRING
      case 'B':      // BINBYTES
      case 'C':      // SHORT_BINBYTES
      case 0x8e: {   // BINBYTES8
        const size_t width = (op == 0x8c || op == 'U' || op == 'C') ? 1
                             : (op == 0x8d || op == 0x8e)            ? 8
                                                                     : 4;
        auto v = make((op == 'B' || op == 'C' || op == 0x8e) ? Kind::Bytes : Kind::String);
        v->text = bytes(uLE(width));
        stack_.push_back(v);
        break;
      }
      case ')': stack_.push_back(make(Kind::Tuple)); break;  // EMPTY_TUPLE
      case 't': stack_.push_back(tuple(popToMark())); break;  // TUPLE
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const size_t n = op - 0x84u;
        if (stack_.size() < n) fail("stack underflow");
        std::vector<PickleValuePtr> items(stack_.end() - static_cast<std::ptrdiff_t>(n),
                                          stack_.end());
        stack_.resize(stack_.size() - n);
        stack_.push_back(tuple(std::move(items)));
        break;
      }
      case ']': stack_.push_back(make(Kind::List)); break;  // EMPTY_LIST
      case 'l': {                                            // LIST
        auto v = make(Kind::List);
        v->items = popToMark();
        stack_.push_back(v);
        break;
      }
      case 'a': {  // APPEND
        auto value = pop();
        append(top(), std::move(value));
        break;
      }
      case 'e': {  // APPENDS
        auto values = popToMark();
        auto& list = top();
        for (auto& value : values) append(list, std::move(value));
        break;
      }
      case '}': stack_.push_back(make(Kind::Dict)); break;  // EMPTY_DICT
      case 'd': {                                            // DICT
        auto values = popToMark();
        if (values.size() % 2) fail("DICT with an odd number of items");
        auto dict = make(Kind::Dict);
        for (size_t i = 0; i < values.size(); i += 2)
          dict->entries.emplace_back(values[i], values[i + 1]);
        stack_.push_back(dict);
        break;
      }
      case 's': {  // SETITEM
        auto value = pop();
        auto key = pop();
        setItem(top(), std::move(key), std::move(value));
        break;
      }
      case 'u': {  // SETITEMS
        auto values = popToMark();
        if (values.size() % 2) fail("SETITEMS with an odd number of items");
        auto& dict = top();
        for (size_t i = 0; i < values.size(); i += 2) setItem(dict, values[i], values[i + 1]);
        break;
      }
      case 'q': memo_[uLE(1)] = top(); break;              // BINPUT
      case 'r': memo_[uLE(4)] = top(); break;              // LONG_BINPUT
      case 0x94: memo_[memo_.size()] = top(); break;       // MEMOIZE
      case 'h': stack_.push_back(memoGet(uLE(1))); break;  // BINGET
      case 'j': stack_.push_back(memoGet(uLE(4))); break;  // LONG_BINGET
      case 'c': {                                          // GLOBAL "module\nname\n"
        const std::string module = line();
        const std::string name = line();
        stack_.push_back(global(module, name));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        auto name = pop();
        auto module = pop();
        if (module->kind != Kind::String || name->kind != Kind::String)
          fail("STACK_GLOBAL needs two strings");
        stack_.push_back(global(module->text, name->text));
        break;
      }
      case 'Q': {  // BINPERSID
        auto pid = pop();
        stack_.push_back(persistentLoad(pid));
        break;
      }
      case 'R': {  // REDUCE
        auto args = pop();
        auto callable = pop();
        stack_.push_back(reduce(callable, args));
        break;
      }
      case 0x81: {  // NEWOBJ: cls.__new__(cls, *args)
        auto args = pop();
        auto cls = pop();
        stack_.push_back(reduce(cls, args));
        break;
      }
      case 'b': {  // BUILD: state of the object below; attributes are not state-dict items
        pop();
        top();
        break;
      }
      default: {
        std::ostringstream text;
        text << "unsupported pickle opcode 0x" << std::hex << static_cast<int>(op)
             << " (not a plain state dict of tensors?)";
        fail(text.str());
      }
    }
  }
}

}  // namespace

std::string PickleValue::describe() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Global: return "global " + text;
    case Kind::Tensor: return "tensor";
    case Kind::Object: return "object " + text;
  }
  return "value";
}

PickleValuePtr unpickle(std::string_view program, const StorageLoader& load_storage,
                        const std::string& source) {
  return Unpickler(program, load_storage, source).run();
}

}  // namespace skytrace::vision
