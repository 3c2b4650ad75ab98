"""Forms of the account pages and the admin's balance adjustment."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from engine.game import MAX_CHIPS

from .models import User
from .selectors import player_name_taken
from .services import HOUSE_USERNAME
from .validators import (
    PLAYER_NAME_MAX,
    PLAYER_NAME_RULES,
    player_name_problem,
    validate_multiline_text,
)


class RegistrationForm(UserCreationForm):  # type: ignore[type-arg]
    """Sign-up: the username also names the user's first human player."""

    class Meta:
        model = User
        fields = ("username", "email")
        help_texts = {"username": f"Also the name of your first player: {PLAYER_NAME_RULES}."}

    def clean_username(self) -> str:
        username: str | None = super().clean_username()
        if username is None:  # Django already reported a case-insensitive duplicate
            return ""
        problem = player_name_problem(username)
        if problem:
            raise forms.ValidationError(problem, code="invalid_name")
        if username.lower() == HOUSE_USERNAME:
            raise forms.ValidationError(
                f"“{username}” is reserved for the system account; please choose another.",
                code="name_taken",
            )
        if player_name_taken(username):
            raise forms.ValidationError(
                f"The name “{username}” is already used by a player; please choose another.",
                code="name_taken",
            )
        return username


class PlayerNameForm(forms.Form):
    name = forms.CharField(max_length=PLAYER_NAME_MAX, help_text=PLAYER_NAME_RULES)


class BotForm(forms.Form):
    name = forms.CharField(max_length=PLAYER_NAME_MAX, help_text=PLAYER_NAME_RULES)
    description = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}),
        validators=[validate_multiline_text],
    )


class DeleteAccountForm(forms.Form):
    """Deleting an account asks for the password, so a left-open session can't do it."""

    password = forms.CharField(widget=forms.PasswordInput, strip=False)

    def __init__(self, user: User, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(
                "That password is not correct; your account was not deleted.", code="bad_password"
            )
        return password


class AdjustBalanceForm(forms.Form):
    amount = forms.IntegerField(
        min_value=-MAX_CHIPS, max_value=MAX_CHIPS,
        help_text=f"Chips to add (positive) or remove (negative); not 0, at most {MAX_CHIPS}.")
    note = forms.CharField(max_length=200, help_text="Why: kept in the ledger.")

    def clean_amount(self) -> int:
        amount: int = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError("An adjustment of 0 chips changes nothing.", code="zero")
        return amount


class PersonalTokenForm(forms.Form):
    name = forms.CharField(max_length=PLAYER_NAME_MAX, help_text="What the token is for, "
                           "e.g. “deploy-script” (letters, digits, '_', '-', '.').")
    scopes = forms.MultipleChoiceField(
        choices=[("bots", "Manage my bots (create, new tokens, delete)")],
        initial=["bots"], widget=forms.CheckboxSelectMultiple)


class HouseBotForm(forms.Form):
    """A house bot's name, style, parameters (a JSON object) and description; the
    style choices and each one's parameters come from ``botkit.house``
    (``accounts.services.house_bot_styles``)."""

    name = forms.CharField(max_length=PLAYER_NAME_MAX, help_text=PLAYER_NAME_RULES)
    style = forms.ChoiceField(choices=())
    params = forms.CharField(
        required=False, max_length=2000, initial="{}", label="Parameters",
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}),
        help_text='A JSON object, e.g. {"samples": 200} for ehs; {} for the defaults.')
    description = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}),
        validators=[validate_multiline_text],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from .services import house_bot_styles

        super().__init__(*args, **kwargs)
        self.fields["style"].choices = [  # type: ignore[attr-defined]
            (style, f"{style} ({', '.join(games) if len(games) <= 3 else f'{len(games)} games'})")
            for style, games in house_bot_styles().items()]

    def clean_params(self) -> dict[str, Any]:
        import json

        text = (self.cleaned_data.get("params") or "").strip() or "{}"
        try:
            value = json.loads(text)
        except ValueError:
            raise forms.ValidationError("The parameters are not valid JSON.",
                                        code="invalid_params") from None
        if not isinstance(value, dict):
            raise forms.ValidationError('The parameters are a JSON object, e.g. {"samples": 200}.',
                                        code="invalid_params")
        return value
