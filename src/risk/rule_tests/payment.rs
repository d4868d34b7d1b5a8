//! The `payment` trigger's default rules: positives that must fire each rule, near
//! misses that must not.

use super::Case;

#[rustfmt::skip]
pub(super) const YES: &[Case] = &[
    ("payment.path.payment-dir", "app/billing/plans.py", ""),
    ("payment.path.payment-dir", "src/checkout/Summary.tsx", ""),
    ("payment.path.payment-file", "src/services/payment_service.go", ""),
    ("payment.path.payment-file", "app/models/invoice.rb", ""),
    ("payment.path.checkout-file", "shop/checkout.py", ""),
    ("payment.path.checkout-file", "web/CheckoutSession.ts", ""),
    ("payment.line.stripe", "server/orders.js", "const intent = await stripe.paymentIntents.create({ amount });"),
    ("payment.line.stripe", "shop/orders.py", "import stripe"),
    ("payment.line.stripe", "app/models/order.rb", "Stripe::Refund.create(charge: id)"),
    ("payment.line.paypal-braintree-adyen", "server/pay.js", "import paypal from '@paypal/checkout-server-sdk';"),
    ("payment.line.paypal-braintree-adyen", "shop/pay.py", "gateway = braintree.BraintreeGateway(config)"),
    // Issue 12: the classes of misses seen on real commits, each in a shape of its own.
    ("payment.path.payment-dir", "app/views/settings/billings/show.html.erb", ""),
    ("payment.path.payment-file", "src/service/impl/AlipayServiceImpl.java", ""),
    ("payment.line.subscription-state", "app/controllers/concerns/gate.rb", "    redirect_to upgrade_subscription_path unless family.subscribed?"),
    ("payment.line.subscription-state", "src/order/OrderService.java", "        orderService.paySuccessByOrderSn(sn, 1);"),
    ("payment.scope.pay", "mall-portal/src/main/java/com/macro/mall/portal/service/impl/OmsPortalOrderServiceImpl.java", "    public Integer paySuccess(Long orderId, Integer payType) {"),
    ("payment.scope.pay", "app/services/orders.rb", "  def refund!(amount)"),
    ("payment.path.payment-dir", "src/subscriptions/renewal.py", ""),
    ("payment.line.subscription-state", "app/Jobs/Banking/CreateBankingDocumentTransaction.php", "                $this->model->status = 'paid';"),
    // Issue 12, out of sample: billing data shown by a server-side view or template.
    ("payment.line.vocabulary", "app/controllers/settings_controller.rb", "    @invoices = current_account.invoices.order(created_at: :desc)"),
    ("payment.line.vocabulary", "app/views/account.py", "        context[\"current_plan\"] = org.subscription_plan"),
    ("payment.line.vocabulary", "templates/accounts/billing_history.html", "{% for item in invoices %}"),
    ("payment.line.vocabulary", "src/server/handlers/org.go", "\tresp.SubscriptionStatus = org.SubscriptionStatus"),
];

#[rustfmt::skip]
pub(super) const NO: &[Case] = &[
    ("payment.path.payment-dir", "app/payroll/report.py", ""),
    ("payment.path.payment-file", "src/styles/striped-table.css", ""),
    ("payment.path.checkout-file", "scripts/git-checkout-all.sh", ""),
    ("payment.line.stripe", "src/util.js", "const s = stripe(whitespace);"),
    ("payment.line.stripe", "src/util.py", "text = strip_e(line)"),
    ("payment.line.stripe", "docs/payments.md", "    import stripe"),
    ("payment.line.paypal-braintree-adyen", "docs/x.js", "// we do not support paypal yet"),
    ("payment.path.payment-file", "assets/billing.png", ""),
    // Issue 12.
    ("payment.path.payment-dir", "app/views/settings/billing_address.md", ""),
    ("payment.line.subscription-state", "app/channels/feed.ts", "socket.on('subscribed', onReady)"),
    ("payment.scope.pay", "server/events.py", "def payload_for(event):"),
    ("payment.scope.pay", "src/player.ts", "  display(frame: Frame) {"),
    ("payment.scope.pay", "mall-portal/src/main/java/com/macro/mall/portal/controller/OmsPortalOrderController.java", "        return paySuccess(orderId, payType);"),
    ("payment.line.subscription-state", "app/Jobs/PublishPost.php", "        $post->status = 'published';"),
    ("payment.line.vocabulary", "src/server/handlers/ws.go", "\tsubscription := hub.Subscribe(topic)"),
    ("payment.line.vocabulary", "src/git/checkout.ts", "  await git.checkout(ref)"),
    ("payment.line.vocabulary", "app/planner.py", "    plan = build_query_plan(query)"),
    ("payment.line.vocabulary", "templates/accounts/billing.html", "<p>{% trans \"Nothing to see\" %}</p>"),
];
