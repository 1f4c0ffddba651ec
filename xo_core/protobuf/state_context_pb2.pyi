from xo_core.protobuf import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TpStateEntry(_message.Message):
    __slots__ = ("address", "data")
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    address: str
    data: bytes
    def __init__(self, address: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class TpStateGetRequest(_message.Message):
    __slots__ = ("context_id", "addresses")
    CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    context_id: str
    addresses: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, context_id: _Optional[str] = ..., addresses: _Optional[_Iterable[str]] = ...) -> None: ...

class TpStateGetResponse(_message.Message):
    __slots__ = ("entries", "status")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpStateGetResponse.Status]
        OK: _ClassVar[TpStateGetResponse.Status]
        AUTHORIZATION_ERROR: _ClassVar[TpStateGetResponse.Status]
    STATUS_UNSET: TpStateGetResponse.Status
    OK: TpStateGetResponse.Status
    AUTHORIZATION_ERROR: TpStateGetResponse.Status
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[TpStateEntry]
    status: TpStateGetResponse.Status
    def __init__(self, entries: _Optional[_Iterable[_Union[TpStateEntry, _Mapping]]] = ..., status: _Optional[_Union[TpStateGetResponse.Status, str]] = ...) -> None: ...

class TpStateSetRequest(_message.Message):
    __slots__ = ("context_id", "entries")
    CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    context_id: str
    entries: _containers.RepeatedCompositeFieldContainer[TpStateEntry]
    def __init__(self, context_id: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[TpStateEntry, _Mapping]]] = ...) -> None: ...

class TpStateSetResponse(_message.Message):
    __slots__ = ("addresses", "status")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpStateSetResponse.Status]
        OK: _ClassVar[TpStateSetResponse.Status]
        AUTHORIZATION_ERROR: _ClassVar[TpStateSetResponse.Status]
    STATUS_UNSET: TpStateSetResponse.Status
    OK: TpStateSetResponse.Status
    AUTHORIZATION_ERROR: TpStateSetResponse.Status
    ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    addresses: _containers.RepeatedScalarFieldContainer[str]
    status: TpStateSetResponse.Status
    def __init__(self, addresses: _Optional[_Iterable[str]] = ..., status: _Optional[_Union[TpStateSetResponse.Status, str]] = ...) -> None: ...

class TpStateDeleteRequest(_message.Message):
    __slots__ = ("context_id", "addresses")
    CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    context_id: str
    addresses: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, context_id: _Optional[str] = ..., addresses: _Optional[_Iterable[str]] = ...) -> None: ...

class TpStateDeleteResponse(_message.Message):
    __slots__ = ("addresses", "status")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpStateDeleteResponse.Status]
        OK: _ClassVar[TpStateDeleteResponse.Status]
        AUTHORIZATION_ERROR: _ClassVar[TpStateDeleteResponse.Status]
    STATUS_UNSET: TpStateDeleteResponse.Status
    OK: TpStateDeleteResponse.Status
    AUTHORIZATION_ERROR: TpStateDeleteResponse.Status
    ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    addresses: _containers.RepeatedScalarFieldContainer[str]
    status: TpStateDeleteResponse.Status
    def __init__(self, addresses: _Optional[_Iterable[str]] = ..., status: _Optional[_Union[TpStateDeleteResponse.Status, str]] = ...) -> None: ...

class TpReceiptAddDataRequest(_message.Message):
    __slots__ = ("context_id", "data")
    CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    context_id: str
    data: bytes
    def __init__(self, context_id: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class TpReceiptAddDataResponse(_message.Message):
    __slots__ = ("status",)
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpReceiptAddDataResponse.Status]
        OK: _ClassVar[TpReceiptAddDataResponse.Status]
        ERROR: _ClassVar[TpReceiptAddDataResponse.Status]
    STATUS_UNSET: TpReceiptAddDataResponse.Status
    OK: TpReceiptAddDataResponse.Status
    ERROR: TpReceiptAddDataResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: TpReceiptAddDataResponse.Status
    def __init__(self, status: _Optional[_Union[TpReceiptAddDataResponse.Status, str]] = ...) -> None: ...

class TpEventAddRequest(_message.Message):
    __slots__ = ("context_id", "event")
    CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    context_id: str
    event: _events_pb2.Event
    def __init__(self, context_id: _Optional[str] = ..., event: _Optional[_Union[_events_pb2.Event, _Mapping]] = ...) -> None: ...

class TpEventAddResponse(_message.Message):
    __slots__ = ("status",)
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpEventAddResponse.Status]
        OK: _ClassVar[TpEventAddResponse.Status]
        ERROR: _ClassVar[TpEventAddResponse.Status]
    STATUS_UNSET: TpEventAddResponse.Status
    OK: TpEventAddResponse.Status
    ERROR: TpEventAddResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: TpEventAddResponse.Status
    def __init__(self, status: _Optional[_Union[TpEventAddResponse.Status, str]] = ...) -> None: ...
