from xo_core.protobuf import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StateChange(_message.Message):
    __slots__ = ("address", "value", "type")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TYPE_UNSET: _ClassVar[StateChange.Type]
        SET: _ClassVar[StateChange.Type]
        DELETE: _ClassVar[StateChange.Type]
    TYPE_UNSET: StateChange.Type
    SET: StateChange.Type
    DELETE: StateChange.Type
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    address: str
    value: bytes
    type: StateChange.Type
    def __init__(self, address: _Optional[str] = ..., value: _Optional[bytes] = ..., type: _Optional[_Union[StateChange.Type, str]] = ...) -> None: ...

class TransactionReceipt(_message.Message):
    __slots__ = ("state_changes", "events", "data", "transaction_id")
    STATE_CHANGES_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    state_changes: _containers.RepeatedCompositeFieldContainer[StateChange]
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.Event]
    data: _containers.RepeatedScalarFieldContainer[bytes]
    transaction_id: str
    def __init__(self, state_changes: _Optional[_Iterable[_Union[StateChange, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.Event, _Mapping]]] = ..., data: _Optional[_Iterable[bytes]] = ..., transaction_id: _Optional[str] = ...) -> None: ...

class StateChangeList(_message.Message):
    __slots__ = ("state_changes",)
    STATE_CHANGES_FIELD_NUMBER: _ClassVar[int]
    state_changes: _containers.RepeatedCompositeFieldContainer[StateChange]
    def __init__(self, state_changes: _Optional[_Iterable[_Union[StateChange, _Mapping]]] = ...) -> None: ...
